/**
 * A passkey authenticator in software, for the server's two-step sign-in tests: it answers a
 * registration with "none" attestation and a P-256 key of its own, and a sign-in challenge
 * with a signature, as WebAuthn's wire formats have them (CBOR, COSE, authenticator data).
 * The browser tests use Chromium's virtual authenticator instead.
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';

type Cbor = number | string | Uint8Array | Map<Cbor, Cbor> | { [k: string]: Cbor };

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 256) return Buffer.from([(major << 5) | 24, n]);
  const b = Buffer.alloc(3);
  b[0] = (major << 5) | 25;
  b.writeUInt16BE(n, 1);
  return b;
}

/** The little of CBOR (RFC 8949) that attestation objects and COSE keys use. */
function cbor(v: Cbor): Buffer {
  if (typeof v === 'number') return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (typeof v === 'string') return Buffer.concat([head(3, Buffer.byteLength(v)), Buffer.from(v)]);
  if (v instanceof Uint8Array) return Buffer.concat([head(2, v.length), Buffer.from(v)]);
  const entries = v instanceof Map ? [...v.entries()] : Object.entries(v);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, x]) => [cbor(k), cbor(x)])]);
}

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest();
const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64url');

interface Credential {
  key: KeyObject;
  counter: number;
}

export class SoftAuthenticator {
  private readonly creds = new Map<string, Credential>();
  private readonly origin: string;
  private readonly rpId: string;

  constructor(origin: string) {
    this.origin = origin;
    this.rpId = new URL(origin).hostname;
  }

  /** Answers POST …/passkeys/options: a new credential for this relying party. */
  register(options: { challenge: string }): Record<string, unknown> {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const id = randomBytes(16);
    this.creds.set(b64(id), { key: privateKey, counter: 0 });
    const cose = new Map<Cbor, Cbor>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x as string, 'base64url')],
      [-3, Buffer.from(jwk.y as string, 'base64url')],
    ]);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    // rpIdHash, flags (user present, attested credential data), counter, AAGUID, the credential.
    const authData = Buffer.concat([
      sha256(this.rpId),
      Buffer.from([0x41]),
      Buffer.alloc(4),
      Buffer.alloc(16),
      idLength,
      id,
      cbor(cose),
    ]);
    const clientData = JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin: this.origin });
    return {
      id: b64(id),
      rawId: b64(id),
      type: 'public-key',
      response: {
        clientDataJSON: b64(clientData),
        attestationObject: b64(cbor({ fmt: 'none', attStmt: {}, authData })),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** Answers a sign-in's passkey challenge with the first of its credentials this one holds. */
  assert(options: { challenge: string; allowCredentials?: { id: string }[] }, tamper = false): Record<string, unknown> {
    const id = (options.allowCredentials ?? []).map((c) => c.id).find((c) => this.creds.has(c));
    if (!id) throw new Error('no credential of this authenticator is allowed');
    const cred = this.creds.get(id) as Credential;
    cred.counter += 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(cred.counter);
    const authData = Buffer.concat([sha256(this.rpId), Buffer.from([0x01]), counter]);
    const clientData = JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin: this.origin });
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), cred.key);
    if (tamper) signature.writeUInt8((signature.at(-1) ?? 0) ^ 1, signature.length - 1);
    return {
      id,
      rawId: id,
      type: 'public-key',
      response: { clientDataJSON: b64(clientData), authenticatorData: b64(authData), signature: b64(signature) },
      clientExtensionResults: {},
    };
  }
}
