/**
 * A push service on loopback for tests (there is no external one here): it takes Web Push
 * requests as FCM or autopush do (RFC 8030), checks their VAPID authorization (RFC 8292:
 * an ES256 JWT for this origin, signed by the key it names), decrypts their aes128gcm
 * payload (RFC 8291, RFC 8188) with the browser's private key, and answers 201, or 410
 * for a subscription marked gone. Subscriptions are made here like a browser makes them:
 * a P-256 key pair and a 16-byte auth secret per subscription.
 */
import { createDecipheriv, createECDH, createPublicKey, type ECDH, hkdfSync, randomBytes, verify } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface ReceivedPush {
  path: string;
  headers: IncomingHttpHeaders;
  /** The decrypted payload. */
  text: string;
  /** The VAPID JWT's claims (checked: signature, audience, expiry). */
  claims: { aud: string; exp: number; sub: string };
  /** The public key the JWT was signed with (the `k` of the Authorization header). */
  vapidKey: string;
}

/**
 * The endpoint's TLS certificate (self-signed for 127.0.0.1, valid for a century; made with
 * `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -addext subjectAltName=IP:127.0.0.1`).
 * Push services speak only HTTPS; a server under test trusts it through PUSH_CA_FILE's config (pushCa).
 */
export const PUSH_ENDPOINT_CERT = `-----BEGIN CERTIFICATE-----
MIIBkDCCATagAwIBAgIUWLnAlL9rjHqYdA3xE3Hb2y87aHMwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyNTIwMjA1MVoYDzIxMjYxMTAx
MjAyMDUxWjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAROwNuBMNyS7AjQBv4X8PKHr6cmn8CHO/UoydqMN3F/uRt4c+5GI31p
76iP7OUpZ1JEiNf4imE1KVz6lTF5gUDKo2QwYjAdBgNVHQ4EFgQUSo37naHDHaN5
QE41DwlEnQLFAo0wHwYDVR0jBBgwFoAUSo37naHDHaN5QE41DwlEnQLFAo0wDwYD
VR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAABMAoGCCqGSM49BAMCA0gAMEUC
IQCH2Zn12yD9pliHAvwwF3Slo38Z6NJ8VsKQL+JoOh15yAIgbGuXeJ1B2zb87TDh
n0HmfAId4pCiOP5fpTuu/AB+D7s=
-----END CERTIFICATE-----
`;
const KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgnaSFoFn5baivTXLV
f0tvzuRK+gKqcoh2jG4f5ntQ/E6hRANCAAROwNuBMNyS7AjQBv4X8PKHr6cmn8CH
O/UoydqMN3F/uRt4c+5GI31p76iP7OUpZ1JEiNf4imE1KVz6lTF5gUDK
-----END PRIVATE KEY-----
`;

interface Sub {
  ecdh: ECDH;
  auth: Buffer;
  gone: boolean;
}

function b64url(b: Buffer): string {
  return b.toString('base64url');
}

/** RFC 8291 section 3.4 and RFC 8188: the body is one record (4,096 bytes at most). */
function decrypt(sub: Sub, body: Buffer): string {
  const salt = body.subarray(0, 16);
  const idlen = body[20] as number;
  const asPublic = body.subarray(21, 21 + idlen);
  const ciphertext = body.subarray(21 + idlen);
  const uaPublic = sub.ecdh.getPublicKey();
  const ecdhSecret = sub.ecdh.computeSecret(asPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]);
  const ikm = Buffer.from(hkdfSync('sha256', ecdhSecret, sub.auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 0x02, then zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error('no last-record delimiter');
  return padded.subarray(0, end).toString('utf8');
}

/** RFC 8292: `vapid t=<JWT>, k=<public key>`; the JWT is ES256 over the header and claims. */
function checkVapid(header: string | undefined, origin: string): { claims: ReceivedPush['claims']; key: string } {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? '');
  if (!m) throw new Error(`bad Authorization: ${header}`);
  const [jwt, k] = [m[1] as string, m[2] as string];
  const [h, c, sig] = jwt.split('.') as [string, string, string];
  const point = Buffer.from(k, 'base64url');
  const key = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: b64url(point.subarray(1, 33)), y: b64url(point.subarray(33, 65)) },
    format: 'jwk',
  });
  const ok = verify(
    'sha256',
    Buffer.from(`${h}.${c}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(sig, 'base64url'),
  );
  if (!ok) throw new Error('VAPID signature does not verify');
  if (JSON.parse(Buffer.from(h, 'base64url').toString()).alg !== 'ES256') throw new Error('VAPID alg is not ES256');
  const claims = JSON.parse(Buffer.from(c, 'base64url').toString()) as ReceivedPush['claims'];
  if (claims.aud !== origin) throw new Error(`VAPID aud ${claims.aud} is not ${origin}`);
  if (!(claims.exp * 1000 > Date.now())) throw new Error('VAPID JWT expired');
  return { claims, key: k };
}

export interface PushEndpoint {
  /** https://127.0.0.1:port */
  origin: string;
  /** A new subscription, as a browser's PushSubscription.toJSON() gives it. */
  subscribe(): { endpoint: string; keys: { p256dh: string; auth: string } };
  /** From now on, this subscription's pushes are answered 410 Gone. */
  markGone(endpoint: string): void;
  received: ReceivedPush[];
  /** Requests refused (bad VAPID, undecryptable), with why. */
  refused: string[];
  close(): Promise<void>;
}

export async function startPushEndpoint(): Promise<PushEndpoint> {
  const subs = new Map<string, Sub>();
  const received: ReceivedPush[] = [];
  const refused: string[] = [];
  let origin = '';
  const server = createServer({ cert: PUSH_ENDPOINT_CERT, key: KEY }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      const sub = subs.get(path);
      if (req.method !== 'POST' || !sub) {
        res.writeHead(404).end();
        return;
      }
      if (sub.gone) {
        res.writeHead(410).end();
        return;
      }
      try {
        if (req.headers['content-encoding'] !== 'aes128gcm') throw new Error('not aes128gcm');
        const { claims, key } = checkVapid(req.headers.authorization, origin);
        const text = decrypt(sub, Buffer.concat(chunks));
        received.push({ path, headers: req.headers, text, claims, vapidKey: key });
        res.writeHead(201).end();
      } catch (err) {
        refused.push((err as Error).message);
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    subscribe() {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      const path = `/push/${randomBytes(12).toString('base64url')}`;
      subs.set(path, { ecdh, auth, gone: false });
      return { endpoint: `${origin}${path}`, keys: { p256dh: b64url(ecdh.getPublicKey()), auth: b64url(auth) } };
    },
    markGone(endpoint) {
      const sub = subs.get(new URL(endpoint).pathname);
      if (sub) sub.gone = true;
    },
    received,
    refused,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
