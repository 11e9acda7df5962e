/**
 * Known answers and cross-checks.
 * 1. Published vectors (RFC 5869, 7914, 7748, 8032 and 9180, the GCM specification,
 *    libsignal's fingerprint test) run through this package's own wrappers.
 * 2. The same primitives against independent implementations (@noble/curves,
 *    @noble/hashes, @noble/ciphers, node:crypto) on random inputs.
 * 3. Frozen project vectors (test/vectors.ts): fixed inputs, pinned outputs, each also
 *    opened by a second implementation of the format written from its documentation.
 *
 * IF A FROZEN VECTOR FAILS, YOU CHANGED A WIRE FORMAT. Stored bundles and messages of
 * real users are in the old one: that needs a new format byte or label version and a
 * migration that still opens the old one, not a new pinned value.
 */
import { scryptSync } from 'node:crypto';
import { Aes128Gcm, Aes256Gcm, CipherSuite, DhkemX25519HkdfSha256, HkdfSha256 } from '@hpke/core';
import { gcm } from '@noble/ciphers/aes.js';
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { hkdf as nobleHkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { importAccount, importPrivate, publicKeysOf, sign, verify, verifyPublicKeys } from './account-keys.ts';
import { aeadOpen, aeadSeal } from './aead.ts';
import { openBundle, recoveryWrapKey } from './bundle.ts';
import { type Bytes, bytes, concat, fromBase64Url, randomBytes, toBase64Url, utf8 } from './bytes.ts';
import { type ChatKeyEnvelope, hpkeSuite, openChatKey, verifyChatKey } from './chat-key.ts';
import { displayableHalf, safetyNumber } from './fingerprint.ts';
import { aesKey, hkdf, hkdfKey } from './hkdf.ts';
import { deriveMaster, splitMaster } from './kdf.ts';
import { decryptMessage, type MessageHeader, type MessagePlace, messageHeader } from './message.ts';
import { paddedLength, padmeLength } from './padding.ts';
import * as V from './test/vectors.ts';

const h = (text: string): Bytes => bytes(hexToBytes(text));
const b64 = (text: string) => toBase64Url(h(text));
const x25519Pkcs8 = (k: Uint8Array) => concat(h('302e020100300506032b656e04220420'), k);
const rawX25519 = (u: Uint8Array) => crypto.subtle.importKey('raw', bytes(u), { name: 'X25519' }, true, []);

async function x25519Bits(priv: Awaited<ReturnType<typeof importPrivate>>, pub: Uint8Array): Promise<string> {
  return bytesToHex(
    new Uint8Array(await crypto.subtle.deriveBits({ name: 'X25519', public: await rawX25519(pub) }, priv, 256)),
  );
}

/** The field encoding of bytes.ts `fields`, written again here: u16 length, then the bytes. */
function lv(...parts: (string | Uint8Array)[]): Uint8Array {
  return concat(...parts.map((p) => (typeof p === 'string' ? utf8(p) : p)).flatMap((b) => [be(b.length, 2), b]));
}
function be(n: number, size: 2 | 4): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = size - 1, v = n; i >= 0; i--, v = Math.floor(v / 256)) out[i] = v % 256;
  return out;
}

/** Padmé as the paper writes it, on integers. */
function padmeRef(length: number): number {
  if (length < 2) return length;
  const e = 31 - Math.clz32(length);
  const s = 32 - Math.clz32(e);
  const mask = 2 ** (e - s) - 1;
  return (length + mask) & ~mask;
}

/** A message opened from its documentation (message.ts) with @noble, not with the package. */
function openMessageBySpec(chatKey: Uint8Array, p: MessagePlace, ct: string): { text: string } & MessageHeader {
  const data = new Uint8Array(Buffer.from(ct, 'base64url'));
  expect(data[0]).toBe(0x01);
  const view = new DataView(data.buffer);
  const epoch = view.getUint32(1);
  const rev = view.getUint16(5);
  const mk = nobleHkdf(sha256, chatKey, undefined, lv('parley/msg/v1', p.chatId, p.msgId, be(rev, 2)), 32);
  const aad = lv('parley/msg/v1', p.chatId, p.msgId, p.senderId, p.recipientId, be(epoch, 4), be(rev, 2));
  const padded = gcm(mk, data.subarray(7, 19), aad).decrypt(data.subarray(19));
  const end = padded.lastIndexOf(0x80);
  expect(padded.subarray(end + 1).every((b) => b === 0)).toBe(true);
  expect(padded.length).toBe(Math.max(32, padmeRef(end + 1)));
  expect(padded[0]).toBe(0x01);
  return { text: new TextDecoder().decode(padded.subarray(1, end)), epoch, rev };
}

describe('RFC 5869 HKDF-SHA-256 through hkdf()', () => {
  it.each(V.RFC5869)('$name', async (v) => {
    const okm = await hkdf(h(v.ikm), h(v.info), v.okm.length / 2, v.salt ? h(v.salt) : undefined);
    expect(bytesToHex(okm)).toBe(v.okm);
    // An empty salt and no salt are the same thing (RFC 5869 section 2.2).
    if (!v.salt) expect(bytesToHex(await hkdf(h(v.ikm), h(v.info), v.okm.length / 2, new Uint8Array(0)))).toBe(v.okm);
  });
});

describe('RFC 7914 scrypt through deriveMaster (its first 32 bytes)', () => {
  it.each(V.RFC7914)('"$password" / "$salt", N=$N r=$r p=$p', async (v) => {
    const master = await deriveMaster(v.password, utf8(v.salt), { alg: 'scrypt', N: v.N, r: v.r, p: v.p });
    expect(bytesToHex(master)).toBe(v.dk.slice(0, 64));
  });
});

describe('RFC 7748 X25519 through Web Crypto', () => {
  it.each(V.RFC7748_SCALAR_MULT)('section 5.2: X25519(k, u) for k = $k', async (v) => {
    const imported = await crypto.subtle.importKey('pkcs8', x25519Pkcs8(h(v.k)), { name: 'X25519' }, true, [
      'deriveBits',
    ]);
    const { x } = await crypto.subtle.exportKey('jwk', imported);
    expect(x).toBe(toBase64Url(x25519.getPublicKey(h(v.k))));
    const key = await importPrivate('X25519', { d: b64(v.k), x: x as string });
    expect(await x25519Bits(key, h(v.u))).toBe(v.out);
  });

  it('section 5.2: 1 and 1,000 iterations from k = u = 9', async () => {
    let k = new Uint8Array(32);
    k[0] = 9;
    let u = k;
    for (let i = 1; i <= 1000; i++) {
      const priv = await crypto.subtle.importKey('pkcs8', x25519Pkcs8(k), { name: 'X25519' }, false, ['deriveBits']);
      [k, u] = [h(await x25519Bits(priv, u)), k];
      if (i === 1) expect(bytesToHex(k)).toBe(V.RFC7748_ITERATED[1]);
    }
    expect(bytesToHex(k)).toBe(V.RFC7748_ITERATED[1000]);
  });

  it('section 6.1: Alice and Bob, through importPrivate', async () => {
    const v = V.RFC7748_DH;
    // importPrivate refuses a JWK whose x is not d's public key: these import only if it agrees.
    const alice = await importPrivate('X25519', { d: b64(v.alicePrivate), x: b64(v.alicePublic) });
    const bob = await importPrivate('X25519', { d: b64(v.bobPrivate), x: b64(v.bobPublic) });
    expect(await x25519Bits(alice, h(v.bobPublic))).toBe(v.shared);
    expect(await x25519Bits(bob, h(v.alicePublic))).toBe(v.shared);
    await expect(importPrivate('X25519', { d: b64(v.alicePrivate), x: b64(v.bobPublic) })).rejects.toThrow();
  });
});

describe('RFC 8032 Ed25519 through importPrivate, sign and verify', () => {
  it.each(V.RFC8032)('section 7.1 $name', async (v) => {
    const key = await importPrivate('Ed25519', { d: b64(v.secret), x: b64(v.public) });
    const sig = await sign(key, h(v.message));
    expect(sig).toBe(b64(v.signature));
    expect(await verify(b64(v.public), h(v.message), sig)).toBe(true);
    expect(await verify(b64(v.public), concat(h(v.message), new Uint8Array([0])), sig)).toBe(false);
    const bent = h(v.signature);
    bent[63] = (bent[63] as number) ^ 0x01;
    expect(await verify(b64(v.public), h(v.message), toBase64Url(bent))).toBe(false);
  });
});

describe('RFC 9180 HPKE, base mode, DHKEM(X25519, HKDF-SHA256), HKDF-SHA256', () => {
  const aes128Suite = new CipherSuite({
    kem: new DhkemX25519HkdfSha256(),
    kdf: new HkdfSha256(),
    aead: new Aes128Gcm(),
  });
  const suiteOf = (v: V.HpkeVector) => (v.aeadId === 2 ? hpkeSuite : aes128Suite);

  it('hpkeSuite is the suite (0x0020, 0x0001, 0x0002) of the AES-256-GCM vector', () => {
    expect([hpkeSuite.kem.id, hpkeSuite.kdf.id, hpkeSuite.aead.id]).toEqual([0x0020, 0x0001, 0x0002]);
  });

  it.each(V.RFC9180)('$name: DeriveKeyPair(ikm) gives the vector keys', async (v) => {
    const { kem } = suiteOf(v);
    const r = await kem.deriveKeyPair(h(v.ikmR));
    expect(bytesToHex(new Uint8Array(await kem.serializePrivateKey(r.privateKey)))).toBe(v.skRm);
    expect(bytesToHex(new Uint8Array(await kem.serializePublicKey(r.publicKey)))).toBe(v.pkRm);
    const e = await kem.deriveKeyPair(h(v.ikmE));
    expect(bytesToHex(new Uint8Array(await kem.serializePublicKey(e.publicKey)))).toBe(v.pkEm);
  });

  it.each(V.RFC9180)('$name: seals as the vector with its ephemeral key', async (v) => {
    const suite = suiteOf(v);
    const recipientPublicKey = await suite.kem.deserializePublicKey(h(v.pkRm));
    const sender = await suite.createSenderContext({ recipientPublicKey, info: h(v.info), ekm: h(v.ikmE) });
    expect(bytesToHex(new Uint8Array(sender.enc))).toBe(v.enc);
    for (const e of v.encryptions) expect(bytesToHex(new Uint8Array(await sender.seal(h(e.pt), h(e.aad))))).toBe(e.ct);
    for (const x of v.exports) expect(bytesToHex(new Uint8Array(await sender.export(h(x.context), 32)))).toBe(x.value);
  });

  it.each(V.RFC9180)('$name: opens the vector with a key from importPrivate, as openChatKey does', async (v) => {
    const suite = suiteOf(v);
    const recipientKey = await importPrivate('X25519', { d: b64(v.skRm), x: b64(v.pkRm) });
    const first = v.encryptions[0] as (typeof v.encryptions)[0];
    const once = await suite.open({ recipientKey, enc: h(v.enc), info: h(v.info) }, h(first.ct), h(first.aad));
    expect(bytesToHex(new Uint8Array(once))).toBe(first.pt);
    const ctx = await suite.createRecipientContext({ recipientKey, enc: h(v.enc), info: h(v.info) });
    for (const e of v.encryptions) expect(bytesToHex(new Uint8Array(await ctx.open(h(e.ct), h(e.aad))))).toBe(e.pt);
    for (const x of v.exports) expect(bytesToHex(new Uint8Array(await ctx.export(h(x.context), 32)))).toBe(x.value);
    await expect(
      suite.open({ recipientKey, enc: h(v.enc), info: h('00') }, h(first.ct), h(first.aad)),
    ).rejects.toThrow();
  });
});

describe('AES-256-GCM (the GCM specification) through aeadOpen', () => {
  it.each(V.GCM_SPEC)('$name', async (v) => {
    const key = await aesKey(h(v.key));
    const sealed = concat(h(v.iv), h(v.ct), h(v.tag));
    expect(bytesToHex(await aeadOpen(key, sealed, h(v.aad)))).toBe(v.pt);
    expect(bytesToHex(gcm(h(v.key), h(v.iv), h(v.aad)).decrypt(sealed.subarray(12)))).toBe(v.pt);
    sealed[sealed.length - 1] = (sealed[sealed.length - 1] as number) ^ 0x80;
    await expect(aeadOpen(key, sealed, h(v.aad))).rejects.toThrow();
  });
});

describe("libsignal's numeric fingerprint", () => {
  it('displayableHalf and safetyNumber give the 60 digits of its test vector', () => {
    const { alice, bob, displayable } = V.SIGNAL_FINGERPRINT;
    const a = { userId: alice.userId, ik: b64(alice.key) };
    const b = { userId: bob.userId, ik: b64(bob.key) };
    expect(displayableHalf(a.userId, a.ik) + displayableHalf(b.userId, b.ik)).toBe(displayable);
    expect(safetyNumber(b, a).join('')).toBe(displayable);
  });
});

describe('cross-checks against independent implementations on random inputs', () => {
  const RUNS = 20;
  const some = (max: number) => randomBytes(Math.floor(Math.random() * (max + 1)));

  it('X25519: Web Crypto through importPrivate agrees with @noble/curves', async () => {
    for (let i = 0; i < RUNS; i++) {
      const [a, b] = [randomBytes(32), randomBytes(32)];
      const key = await importPrivate('X25519', { d: toBase64Url(a), x: toBase64Url(x25519.getPublicKey(a)) });
      const bPublic = x25519.getPublicKey(b);
      expect(await x25519Bits(key, bPublic)).toBe(bytesToHex(x25519.getSharedSecret(a, bPublic)));
    }
  });

  it('Ed25519: sign() gives @noble/curves’ signature, and each verifies the other’s', async () => {
    for (let i = 0; i < RUNS; i++) {
      const [seed, message] = [randomBytes(32), some(300)];
      const pub = ed25519.getPublicKey(seed);
      const sig = await sign(await importPrivate('Ed25519', { d: toBase64Url(seed), x: toBase64Url(pub) }), message);
      expect(ed25519.verify(fromBase64Url(sig), message, pub)).toBe(true);
      expect(sig).toBe(toBase64Url(ed25519.sign(message, seed)));
      expect(await verify(toBase64Url(pub), message, toBase64Url(ed25519.sign(message, seed)))).toBe(true);
    }
  });

  it('HKDF: hkdf() agrees with @noble/hashes', async () => {
    for (let i = 0; i < RUNS; i++) {
      const [ikm, info, length] = [some(80), some(80), 1 + Math.floor(Math.random() * 200)];
      const salt = i % 2 ? some(80) : undefined;
      expect(bytesToHex(await hkdf(ikm, info, length, salt))).toBe(
        bytesToHex(nobleHkdf(sha256, ikm, salt, info, length)),
      );
    }
  });

  it('AES-256-GCM: aeadSeal and aeadOpen agree with @noble/ciphers both ways', async () => {
    for (let i = 0; i < RUNS; i++) {
      const [raw, plain, aad, nonce] = [randomBytes(32), some(200), some(60), randomBytes(12)];
      const key = await aesKey(raw);
      const ours = await aeadSeal(key, plain, aad);
      expect(bytesToHex(gcm(raw, ours.subarray(0, 12), aad).decrypt(ours.subarray(12)))).toBe(bytesToHex(plain));
      const theirs = concat(nonce, gcm(raw, nonce, aad).encrypt(plain));
      expect(bytesToHex(await aeadOpen(key, theirs, aad))).toBe(bytesToHex(plain));
    }
  });

  it('scrypt: deriveMaster agrees with node:crypto on the NFKC form of the password', async () => {
    for (const password of ['', 'hunter2', 'ﬁancé ＡＢＣ', 'cafe\u0301 🙂', 'Ω≈ç√∫']) {
      const salt = randomBytes(16);
      const master = await deriveMaster(password, salt, { alg: 'scrypt', N: 256, r: 8, p: 2 });
      const node = scryptSync(password.normalize('NFKC'), salt, 32, { N: 256, r: 8, p: 2 });
      expect(bytesToHex(master)).toBe(node.toString('hex'));
    }
    const salt = randomBytes(16);
    const params = { alg: 'scrypt', N: 16, r: 1, p: 1 } as const;
    expect(await deriveMaster('café', salt, params)).toEqual(await deriveMaster('cafe\u0301', salt, params));
  });

  it('Padmé: padmeLength is the paper’s integer formula for every length up to 2^17', () => {
    for (let n = 0; n <= 2 ** 17; n++)
      if (padmeLength(n) !== padmeRef(n)) expect([n, padmeLength(n)]).toEqual([n, padmeRef(n)]);
  });
});

describe('frozen project vectors (a failure means a wire format changed: see the header)', () => {
  it('password: the scrypt master, auth, and a bundle sealed under wrapKey', async () => {
    const master = await deriveMaster(
      V.PASSWORD.password,
      Uint8Array.from({ length: 16 }, (_, i) => i),
      V.PASSWORD.params,
    );
    expect(bytesToHex(master)).toBe(V.PASSWORD.master);
    const { auth, wrapKey } = await splitMaster(master);
    expect(auth).toBe(V.PASSWORD.auth);
    expect(toBase64Url(nobleHkdf(sha256, master, undefined, utf8('parley/auth/v1'), 32))).toBe(auth);
    expect(await openBundle(V.PASSWORD.bundle, wrapKey, V.ALICE, 7)).toEqual(V.ALICE_CONTENTS);
    const wrapRaw = nobleHkdf(sha256, master, undefined, utf8('parley/wrap/v1'), 32);
    expect(openBundleBySpec(V.PASSWORD.bundle, wrapRaw, V.ALICE, 7)).toEqual(V.ALICE_CONTENTS);
  });

  it('bundles under a raw AES key and under a recovery key', async () => {
    const fixed = new Uint8Array(32).fill(0x09);
    expect(await openBundle(V.BUNDLE_FIXED_KEY, await aesKey(fixed), V.ALICE, 1)).toEqual(V.ALICE_CONTENTS);
    expect(openBundleBySpec(V.BUNDLE_FIXED_KEY, fixed, V.ALICE, 1)).toEqual(V.ALICE_CONTENTS);
    await expect(openBundle(V.BUNDLE_FIXED_KEY, await aesKey(fixed), V.ALICE, 2)).rejects.toThrow();
    const recovery = new Uint8Array(32).fill(0x5a);
    expect(await openBundle(V.BUNDLE_RECOVERY, await recoveryWrapKey(recovery), V.BOB, 2)).toEqual(V.BOB_CONTENTS);
    const recoveryRaw = nobleHkdf(sha256, recovery, undefined, utf8('parley/recovery/v1'), 32);
    expect(openBundleBySpec(V.BUNDLE_RECOVERY, recoveryRaw, V.BOB, 2)).toEqual(V.BOB_CONTENTS);
  });

  it('public keys: the UK certificate signature', async () => {
    for (const [contents, pub] of [
      [V.ALICE_CONTENTS, V.ALICE_PUBLIC],
      [V.BOB_CONTENTS, V.BOB_PUBLIC],
    ] as const) {
      expect(await publicKeysOf(contents, pub.userId)).toEqual(pub);
      expect(await verifyPublicKeys(pub)).toBe(true);
      const signed = lv('parley/uk/v1', pub.userId, be(pub.ukEpoch, 4), fromBase64Url(pub.uk));
      expect(ed25519.verify(fromBase64Url(pub.ukSig), signed, fromBase64Url(pub.ik))).toBe(true);
    }
  });

  it('safety numbers', () => {
    expect(displayableHalf(V.ALICE, V.ALICE_PUBLIC.ik)).toBe(V.SAFETY.alice);
    expect(displayableHalf(V.BOB, V.BOB_PUBLIC.ik)).toBe(V.SAFETY.bob);
    const both = (V.SAFETY.alice + V.SAFETY.bob).match(/\d{5}/g);
    const [a, b] = [
      { userId: V.ALICE, ik: V.ALICE_PUBLIC.ik },
      { userId: V.BOB, ik: V.BOB_PUBLIC.ik },
    ];
    expect(safetyNumber(a, b)).toEqual(both);
    expect(safetyNumber(b, a)).toEqual(both);
  });

  it('padding lengths', () => {
    for (const [n, padme, padded] of V.PADME) expect([n, padmeLength(n), paddedLength(n)]).toEqual([n, padme, padded]);
  });

  it.each(V.MESSAGES_FIXED_KEY)('a message under a fixed chat key: "$text"', async (m) => {
    const chatKey = new Uint8Array(32).fill(7);
    expect(messageHeader(m.ct)).toEqual(m.header);
    expect(await decryptMessage(await hkdfKey(chatKey), m.place, m.ct, m.header)).toEqual({
      text: m.text,
      ...m.header,
    });
    expect(openMessageBySpec(chatKey, m.place, m.ct)).toEqual({ text: m.text, ...m.header });
  });

  it('a chat key envelope opens for both participants, and a message under it decrypts', async () => {
    const m = V.ENVELOPE_MESSAGE;
    for (const [contents, userId] of [
      [V.ALICE_CONTENTS, V.ALICE],
      [V.BOB_CONTENTS, V.BOB],
    ] as const) {
      expect(await verifyChatKey(V.ENVELOPE, V.ALICE_PUBLIC.ik)).toBe(true);
      const key = await openChatKey(await importAccount(contents, userId), V.ENVELOPE, V.ALICE_PUBLIC.ik);
      expect(await decryptMessage(key, m.place, m.ct, m.header)).toEqual({ text: m.text, ...m.header });
    }
    expect(await verifyChatKey(V.ENVELOPE, V.BOB_PUBLIC.ik)).toBe(false);
  });

  it('the chat key envelope, checked and opened from its documentation', async () => {
    const e: ChatKeyEnvelope = V.ENVELOPE;
    const signed = concat(
      lv('parley/chatkey-sig/v1', e.chatId, be(e.epoch, 4), e.creatorId),
      ...e.seals.map((s) => lv(s.userId, be(s.ukEpoch, 4), fromBase64Url(s.enc), fromBase64Url(s.ct))),
    );
    expect(ed25519.verify(fromBase64Url(e.sig), signed, fromBase64Url(V.ALICE_PUBLIC.ik))).toBe(true);
    // A CipherSuite binds its KDF to its suite id: each gets instances of its own.
    const suite = (aead: Aes128Gcm | Aes256Gcm) =>
      new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead });
    const [documented, aes128] = [suite(new Aes256Gcm()), suite(new Aes128Gcm())];
    const raws: string[] = [];
    for (const [seal, contents] of [
      [e.seals[0], V.ALICE_CONTENTS],
      [e.seals[1], V.BOB_CONTENTS],
    ] as const) {
      if (!seal) throw new Error('two seals');
      const uk = contents.uks.find((k) => k.epoch === seal.ukEpoch);
      const recipientKey = await documented.kem.deserializePrivateKey(fromBase64Url(uk?.d ?? ''));
      const info = lv('parley/chatkey/v1', e.chatId, be(e.epoch, 4), seal.userId, be(seal.ukEpoch, 4));
      const params = { recipientKey, enc: fromBase64Url(seal.enc), info };
      raws.push(bytesToHex(new Uint8Array(await documented.open(params, fromBase64Url(seal.ct)))));
      // The seal is AES-256-GCM: the same KEM and KDF with AES-128-GCM do not open it.
      await expect(aes128.open(params, fromBase64Url(seal.ct))).rejects.toThrow();
    }
    expect(raws[0]).toHaveLength(64);
    expect(raws[1]).toBe(raws[0]);
    const m = V.ENVELOPE_MESSAGE;
    expect(openMessageBySpec(h(raws[0] as string), m.place, m.ct)).toEqual({ text: m.text, ...m.header });
  });
});

/** A bundle opened from its documentation (bundle.ts) with @noble. */
function openBundleBySpec(sealed: string, key: Uint8Array, userId: string, version: number): unknown {
  const data = new Uint8Array(Buffer.from(sealed, 'base64url'));
  expect(data[0]).toBe(0x01);
  const plain = gcm(key, data.subarray(1, 13), lv('parley/bundle/v1', userId, be(version, 4))).decrypt(
    data.subarray(13),
  );
  return JSON.parse(new TextDecoder().decode(plain));
}
