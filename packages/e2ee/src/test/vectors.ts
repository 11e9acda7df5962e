/**
 * Known-answer data for known-answers.test.ts: published vectors (hex, as printed in
 * their sources) and this project's own frozen vectors (base64url, as on the wire).
 */
import type { BundleContents, PublicKeys } from '../account-keys.ts';
import type { ChatKeyEnvelope } from '../chat-key.ts';

/** RFC 5869 appendix A.1–A.3 (HKDF-SHA-256). */
export const RFC5869 = [
  {
    name: 'A.1 basic',
    ikm: '0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b',
    salt: '000102030405060708090a0b0c',
    info: 'f0f1f2f3f4f5f6f7f8f9',
    okm: '3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865',
  },
  {
    name: 'A.2 longer inputs and output',
    ikm:
      '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f' +
      '202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f',
    salt:
      '606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f' +
      '808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeaf',
    info:
      'b0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecf' +
      'd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff',
    okm:
      'b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c' +
      '59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87',
  },
  {
    name: 'A.3 empty salt and info',
    ikm: '0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b',
    salt: '',
    info: '',
    okm: '8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8',
  },
];

/** RFC 7914 section 12, the vectors whose password and salt are ASCII; `dk` is the full 64-byte output. */
export const RFC7914 = [
  {
    password: '',
    salt: '',
    N: 16,
    r: 1,
    p: 1,
    dk:
      '77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442' +
      'fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906',
  },
  {
    password: 'password',
    salt: 'NaCl',
    N: 1024,
    r: 8,
    p: 16,
    dk:
      'fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162' +
      '2eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640',
  },
  {
    password: 'pleaseletmein',
    salt: 'SodiumChloride',
    N: 16384,
    r: 8,
    p: 1,
    dk:
      '7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2' +
      'd5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887',
  },
];

/** RFC 7748 section 5.2: X25519(k, u). The second u has its top bit set, which must be ignored. */
export const RFC7748_SCALAR_MULT = [
  {
    k: 'a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4',
    u: 'e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c',
    out: 'c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552',
  },
  {
    k: '4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d',
    u: 'e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493',
    out: '95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957',
  },
];

/** RFC 7748 section 5.2, iterated from k = u = 9: k after 1 and after 1,000 rounds. */
export const RFC7748_ITERATED = {
  1: '422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079',
  1000: '684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51',
};

/** RFC 7748 section 6.1: the Diffie-Hellman exchange of Alice and Bob. */
export const RFC7748_DH = {
  alicePrivate: '77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a',
  alicePublic: '8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a',
  bobPrivate: '5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb',
  bobPublic: 'de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f',
  shared: '4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742',
};

/** RFC 8032 section 7.1, Ed25519 TEST 1–3. */
export const RFC8032 = [
  {
    name: 'TEST 1',
    secret: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    public: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    message: '',
    signature:
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155' +
      '5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  },
  {
    name: 'TEST 2',
    secret: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    public: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    message: '72',
    signature:
      '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da' +
      '085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
  {
    name: 'TEST 3',
    secret: 'c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7',
    public: 'fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025',
    message: 'af82',
    signature:
      '6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac' +
      '18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a',
  },
];

export interface HpkeVector {
  name: string;
  aeadId: number;
  info: string;
  ikmR: string;
  ikmE: string;
  skRm: string;
  pkRm: string;
  pkEm: string;
  enc: string;
  /** The first two of the vector's encryptions, in sequence order. */
  encryptions: { aad: string; pt: string; ct: string }[];
  /** Two of its exports, each 32 bytes long. */
  exports: { context: string; value: string }[];
}

const BEAUTY = '4265617574792069732074727574682c20747275746820626561757479';
const URN = '4f6465206f6e2061204772656369616e2055726e';

/**
 * RFC 9180 test vectors, mode 0 (base), DHKEM(X25519, HKDF-SHA256) and HKDF-SHA256:
 * appendix A.1.1 with AES-128-GCM, and from the RFC's full JSON (cfrg/draft-irtf-cfrg-hpke
 * test-vectors.json at 5f503c5, the "HPKE-v1" vectors; vendored by cloudflare/circl as
 * hpke/testdata/vectors_rfc9180_5f503c5.json.gz) the entry for AES-256-GCM, the suite
 * (0x0020, 0x0001, 0x0002) that chat keys use. Older drafts' vectors (with seedR/seedE)
 * use other labels and do not match.
 */
export const RFC9180: HpkeVector[] = [
  {
    name: 'A.1.1 (0x0020, 0x0001, 0x0001) AES-128-GCM',
    aeadId: 1,
    info: URN,
    ikmR: '6db9df30aa07dd42ee5e8181afdb977e538f5e1fec8a06223f33f7013e525037',
    ikmE: '7268600d403fce431561aef583ee1613527cff655c1343f29812e66706df3234',
    skRm: '4612c550263fc8ad58375df3f557aac531d26850903e55a9f23f21d8534e8ac8',
    pkRm: '3948cfe0ad1ddb695d780e59077195da6c56506b027329794ab02bca80815c4d',
    pkEm: '37fda3567bdbd628e88668c3c8d7e97d1d1253b6d4ea6d44c150f741f1bf4431',
    enc: '37fda3567bdbd628e88668c3c8d7e97d1d1253b6d4ea6d44c150f741f1bf4431',
    encryptions: [
      {
        aad: '436f756e742d30',
        pt: BEAUTY,
        ct: 'f938558b5d72f1a23810b4be2ab4f84331acc02fc97babc53a52ae8218a355a96d8770ac83d07bea87e13c512a',
      },
      {
        aad: '436f756e742d31',
        pt: BEAUTY,
        ct: 'af2d7e9ac9ae7e270f46ba1f975be53c09f8d875bdc8535458c2494e8a6eab251c03d0c22a56b8ca42c2063b84',
      },
    ],
    exports: [
      { context: '', value: '3853fe2b4035195a573ffc53856e77058e15d9ea064de3e59f4961d0095250ee' },
      { context: '54657374436f6e74657874', value: 'e9e43065102c3836401bed8c3c3c75ae46be1639869391d62c61f1ec7af54931' },
    ],
  },
  {
    name: '(0x0020, 0x0001, 0x0002) AES-256-GCM',
    aeadId: 2,
    info: URN,
    ikmR: 'dac33b0e9db1b59dbbea58d59a14e7b5896e9bdf98fad6891e99d1686492b9ee',
    ikmE: '2cd7c601cefb3d42a62b04b7a9041494c06c7843818e0ce28a8f704ae7ab20f9',
    skRm: '497b4502664cfea5d5af0b39934dac72242a74f8480451e1aee7d6a53320333d',
    pkRm: '430f4b9859665145a6b1ba274024487bd66f03a2dd577d7753c68d7d7d00c00c',
    pkEm: '6c93e09869df3402d7bf231bf540fadd35cd56be14f97178f0954db94b7fc256',
    enc: '6c93e09869df3402d7bf231bf540fadd35cd56be14f97178f0954db94b7fc256',
    encryptions: [
      {
        aad: '436f756e742d30',
        pt: BEAUTY,
        ct: 'e5d84cd531cfb583096e7cfa9641bd3079cf3a91cda813c52deb5f512be9931980a41de125a925cdad859d5b7a',
      },
      {
        aad: '436f756e742d31',
        pt: BEAUTY,
        ct: '2c43aff25343fdbff864506f0818b9d87df84ea01b1a2144d23b4d40c26bf655fdf197fe40297a8aebeed5cc2d',
      },
    ],
    exports: [
      { context: '', value: 'ded6cffafaea6b812cbf3e241e88332adbc077aca81512914213810ee291770a' },
      { context: '54657374436f6e74657874', value: '7c5ded445732c14fe09727d29b4251c0fd38455fe8440571e687f0886aac94d2' },
    ],
  },
];

/**
 * The GCM specification (McGrew and Viega), AES-256 test cases 15 (no AAD) and 16
 * (AAD, a 60-byte plaintext: a partial last block), as in NIST's GCM validation.
 */
const GCM_KEY = 'feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308';
const GCM_PT =
  'd9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72' +
  '1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255';
const GCM_CT =
  '522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa' +
  '8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad';
export const GCM_SPEC = [
  {
    name: 'test case 15',
    key: GCM_KEY,
    iv: 'cafebabefacedbaddecaf888',
    aad: '',
    pt: GCM_PT,
    ct: GCM_CT,
    tag: 'b094dac5d93471bdec1a502270e3cc6c',
  },
  {
    name: 'test case 16',
    key: GCM_KEY,
    iv: 'cafebabefacedbaddecaf888',
    aad: 'feedfacedeadbeeffeedfacedeadbeefabaddad2',
    pt: GCM_PT.slice(0, 120),
    ct: GCM_CT.slice(0, 120),
    tag: '76fc6ece0f4e1768cddf8853bb2d551b',
  },
];

/**
 * libsignal's NumericFingerprintGeneratorTest: two 33-byte identity keys (0x05 ‖ X25519),
 * phone numbers as stable ids, 5,200 iterations; its 60 displayed digits.
 */
export const SIGNAL_FINGERPRINT = {
  alice: { userId: '+14152222222', key: '0506863bc66d02b40d27b8d49ca7c09e9239236f9d7d25d6fcca5ce13c7064d868' },
  bob: { userId: '+14153333333', key: '05f781b6fb32fed9ba1cf2de978d4d5da28dc34046ae814402b5c0dbd96fda907b' },
  displayable: '300354477692869396892869876765458257569162576843440918079131',
};

// ---------------------------------------------------------------------------------------
// Frozen project vectors. Made once by this code and pinned: see the test file's header.

export const ALICE = 'A'.repeat(20);
export const BOB = 'B'.repeat(20);
export const CHAT = `${ALICE}_${BOB}`;

/** Alice's bundle contents: IK from the seed 0xa1 × 32, UK[1] from the scalar 0xa2 × 32. */
export const ALICE_CONTENTS: BundleContents = {
  v: 1,
  ik: { d: 'oaGhoaGhoaGhoaGhoaGhoaGhoaGhoaGhoaGhoaGhoaE', x: 'vHy8tWNjdfodgkNNRmck2SN39TuYBpXdSdJtDOEiBaU' },
  uks: [
    { d: 'oqKioqKioqKioqKioqKioqKioqKioqKioqKioqKioqI', x: 'PFxs4t2Z4Q0sPeBddzqhXj5tlx7U5BOJyTtLvdoXchI', epoch: 1 },
  ],
  adk: 'o6Ojo6Ojo6Ojo6Ojo6Ojo6Ojo6Ojo6Ojo6Ojo6Ojo6M',
};

/** Bob's: IK from 0xb1 × 32, UK[3] from 0xb2 × 32. */
export const BOB_CONTENTS: BundleContents = {
  v: 1,
  ik: { d: 'sbGxsbGxsbGxsbGxsbGxsbGxsbGxsbGxsbGxsbGxsbE', x: 'RyG1tjInLmWmjdp6wltBhfiwGRbbGFwUKH25Lit3D64' },
  uks: [
    { d: 'srKysrKysrKysrKysrKysrKysrKysrKysrKysrKysrI', x: '20glfhI3l2p0rYz-3KACE0CP6JrGJR8bkwJF8kK1wxo', epoch: 3 },
  ],
  adk: 's7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7M',
};

/** publicKeysOf(…) of the two: Ed25519 is deterministic, so `ukSig` is fixed too. */
export const ALICE_PUBLIC: PublicKeys = {
  userId: ALICE,
  ik: 'vHy8tWNjdfodgkNNRmck2SN39TuYBpXdSdJtDOEiBaU',
  ukEpoch: 1,
  uk: 'PFxs4t2Z4Q0sPeBddzqhXj5tlx7U5BOJyTtLvdoXchI',
  ukSig: 'Gsc0UWol3bukZenlY3gTQ7ZMh-rOFJhMF9666DZuDVMpEpV7PlGWx1TXJaSXUDJaNt627dPIF1pspoEFnbfOBQ',
};
export const BOB_PUBLIC: PublicKeys = {
  userId: BOB,
  ik: 'RyG1tjInLmWmjdp6wltBhfiwGRbbGFwUKH25Lit3D64',
  ukEpoch: 3,
  uk: '20glfhI3l2p0rYz-3KACE0CP6JrGJR8bkwJF8kK1wxo',
  ukSig: 'IEZ98QVGZg6i2M7xf6ayyNX3iJJahFNo6jctAg1_8nnn-CKVRWgDNod54odC-5xHtAKhIlvd_PO5OATgETtxCg',
};

/** deriveMaster('correct horse', bytes 0..15, scrypt N=1024 r=8 p=1), and `auth` from splitMaster. */
export const PASSWORD = {
  password: 'correct horse',
  params: { alg: 'scrypt', N: 1024, r: 8, p: 1 } as const,
  master: '9df923deed5f4531c279af9f56bd37b1657bef4929e702ce2e811a93388a86a1',
  auth: 'jJjZBp7oyZTY93IDYhWsMGAJ5wTvjZ7rXlDFjoA1n8s',
  /** ALICE_CONTENTS sealed under that master's wrapKey for (ALICE, version 7). */
  bundle:
    'AS2kpcdssaz2xqecW23HQ9CVZkCULXE2ENB_UhO4FcmRtLZAj0nYe_SyPpzNdUSJtwli-cfdA2hWEgisZcOcP0lAuF7T60c2f1UUyn_JToM563zl' +
    'ZilOHwamkxXE4JkoINlXVb7Kbzbg6ymxq5YJd2MpK8Kv495OxxtkYuqJgOyNmj_tZlq4XTVtJduNU16paVPWsp52487kBuBRo240oeYmxkUcEHJy' +
    'Mlr6I1ksFGlXSP-x3GiiOyV4SucwZfuAVP33VRuw8eFEqR-jX1SNOkjCP1Os9WCvJgsstHD0nlXBu4Tmb_orcu1jYfnDRyW3GMUEC7lv0uhGszDz' +
    'OQUCk765ZvvqSI500mgyY97D_BPpIUuX-XdtOuYWmOdnwiIbhosa8JVvh3muh01d6bTlXZHrnPejYXLHNWPX',
};

/** ALICE_CONTENTS sealed for (ALICE, version 1) under the raw AES key 0x09 × 32. */
export const BUNDLE_FIXED_KEY =
  'ASFHr2_FxcjEd8ZF_FwZ8qKt14aaUmRpIYQq4l5ohbLZU2O8LKZbU3XA-hfL3ul6dv46f6ebu_WoEbEm6hqocz4jFm1rNcscvxlAD2vetlf3b-dT' +
  'P30JQBEUHf2CsDWIKHTHDQKwPSvI3Xt639QmuSj11NBRfnL2zPhUE9kVhZ33jMFK5LJhvp70m43mDlinzHJDst4CNfua_undKh4PvqsBFBY-EcTk' +
  'tPQyuDdswlp2ORAVrCqaDspniuUpNfy4cBzjE7lM2R8hQioAb4QfW_sPFQpmzWbsREpi9WpQnYJ91tdJMXgo897ikOywqcrQd4v7TAsDHdD7vaUi' +
  'VjTeYVlJhy_-DDxvjIMO1ZpFaN6PETkMqy9ndjjWs2aRrAIJ1_LpKWpGj1gLn4mQGaSb6ozPX98EYLl8R_RS';

/** BOB_CONTENTS sealed for (BOB, version 2) under recoveryWrapKey(0x5a × 32). */
export const BUNDLE_RECOVERY =
  'AZd5CcKrTtIxzKUOKTdQ5ANyOUpcfKaCsEMzWdrZBkP-Go8cR3FmBbPK-B10dzfPTTs6k92ud3dpbe8HdZyWc3-Byd-XkHfHQiPxkeWHIq7S8Sks' +
  'pHQVJiOZB3SLtHLl38Ob235c8AxgtpUscoco4R59hb3aCco3wy9uS_yL5JtZDaALVLlOA9dbWVwVm_yquN0G8TRv91MKL6sN4XQXTx8eBrTyHoqk' +
  'betEVup9gQTa1w9bzlzaz40yf2GAEyJ0Kw6pvJ7y-pBNmTuUQq6mhYrJleXNESdFkMw_8cHe-TgbLTlQgDeHxnPvqncQdOZLAISlWsvfVSY8n3ff' +
  'EIlDJBTA-6c8Z9_M2szWfhuOk8P6zoHd2TzebwnZOsDSj21VtcCHgFc1oEQe7WrP7fh-qLCocyFMDlC_z8mM';

/** Messages under the chat key hkdfKey(0x07 × 32). */
export const MESSAGES_FIXED_KEY = [
  {
    place: { chatId: CHAT, msgId: 'm-0001', senderId: ALICE, recipientId: BOB },
    header: { epoch: 5, rev: 2 },
    text: 'Hello, Bob! 👋 Ünïcödé',
    ct: 'AQAAAAUAArooHD5qn3b3SHfCqEEaNGYk_scW_L5LxYVFy8A8ODV9WsTWTGBM2_hYmUcvH7imLNJoIm_dfRXvp89Qcw',
  },
  {
    place: { chatId: CHAT, msgId: 'm-0002', senderId: ALICE, recipientId: BOB },
    header: { epoch: 1, rev: 0 },
    text: '',
    ct: 'AQAAAAEAABwuiMH_i1ET_MAe34imYqBVpxWWFU4rz4JX4q6BTYANlJ_GdYMYtPV2Rho44yZxXu8QIFU5kO9N-1SibA',
  },
];

/** A chat key for epoch 4 made by Alice for both, and a message from Bob under it. */
export const ENVELOPE: ChatKeyEnvelope = {
  chatId: CHAT,
  epoch: 4,
  creatorId: ALICE,
  seals: [
    {
      userId: ALICE,
      ukEpoch: 1,
      enc: 'zNp6-jPmMV1Sp96pFgCPZu6vz0U8MXNTJ8ZuznoY1Eo',
      ct: '0BKlWf-2hmORvjXmONEh3MvXAg7LCLkU7zvRqQ6LFWkxQY3e3EMFKfg1OuaEizPP',
    },
    {
      userId: BOB,
      ukEpoch: 3,
      enc: '7Ul6cw27KtDk39PRUFIKf3Yco9ZDPorkZzNI-Xl42jc',
      ct: 'LIhghAZrVtJ_16RBmQi9_cfKNuNByb5d3SqHp7xENJ1yIdlE6S1gxCCfK6qe6XUg',
    },
  ],
  sig: 'q60yRJQHbBWhAdx2YVqO3q7BDXSHEkLlfZLbMgXemCR5u6KHIClj6KmXWo2EZXrrrlmu4oF5JKLj0VNiyD8QDw',
};
export const ENVELOPE_MESSAGE = {
  place: { chatId: CHAT, msgId: 'm-0003', senderId: BOB, recipientId: ALICE },
  header: { epoch: 4, rev: 0 },
  text: 'sealed to both of us',
  ct: 'AQAAAAQAAFpaNE3HxdtY0O5rpAYeNbusoiu6Ml4OCveJgEnSouVdT76TdD369cfOWquaT3gTtGMDf5POLmlxLTk-kg',
};

/** Safety-number halves of the two (displayableHalf(userId, ik.x)). */
export const SAFETY = {
  alice: '513192641034911551436142847147',
  bob: '022954825673621138016866419797',
};

/** [content length, padmeLength, paddedLength]. */
export const PADME: [number, number, number][] = [
  [0, 0, 32],
  [1, 1, 32],
  [2, 2, 32],
  [3, 3, 32],
  [31, 32, 32],
  [32, 32, 36],
  [33, 36, 36],
  [100, 104, 104],
  [1000, 1024, 1024],
  [4096, 4096, 4352],
  [12289, 12800, 12800],
];
