/**
 * One valid value of every request schema a client sends (WebSocket frames and HTTP
 * bodies and queries), and helpers to mutate them: the text-policy test walks every
 * string field of these, and the server's fuzz test starts from them.
 */
import type { z } from 'zod';
import {
  adminUserFlagsSchema,
  adminUsersQuerySchema,
  auditQuerySchema,
  broadcastInputSchema,
  helpLinkInputSchema,
} from '../admin.ts';
import { PROTOCOL_VERSION } from '../constants.ts';
import {
  changeEmailRequestSchema,
  changePasswordRequestSchema,
  preloginSchema,
  putKeysSchema,
  resetPasswordRequestSchema,
  signInRequestSchema,
  signUpRequestSchema,
  upgradeAuthSchema,
} from '../keys.ts';
import { privacySchema, profileSchema, removePinSchema, setPinSchema, verifyPinSchema } from '../social.ts';
import { forgotPasswordSchema, verifyEmailSchema } from '../validation.ts';
import type { UpFrame } from '../ws.ts';

export const SAMPLE_USER_ID = 'AAAAAAAAAAAAAAAAAAAA';
export const SAMPLE_PEER_ID = 'BBBBBBBBBBBBBBBBBBBB';
export const SAMPLE_CHAT_ID = `${SAMPLE_USER_ID}_${SAMPLE_PEER_ID}`;

/**
 * Bytes shaped like a sealed message (sealed.ts): its header (format 1, `epoch`, `rev`) and
 * `length` bytes in all. Nobody can open it; the server cannot tell.
 */
export function sampleCiphertext(epoch = 1, rev = 0, length = 67, fill = 7): string {
  const bytes = new Uint8Array(length).fill(fill);
  bytes[0] = 1;
  new DataView(bytes.buffer).setUint32(1, epoch);
  new DataView(bytes.buffer).setUint16(5, rev);
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** A chat key envelope of the right shape (its seals and signature open nothing). */
export function sampleChatKey(chatId = SAMPLE_CHAT_ID, epoch = 1, creatorId = SAMPLE_USER_ID) {
  const [a = SAMPLE_USER_ID, b = SAMPLE_PEER_ID] = chatId.split('_');
  const seal = (userId: string) => ({ userId, ukEpoch: 1, enc: 'E'.repeat(43), ct: 'C'.repeat(64) });
  return { chatId, epoch, creatorId, seals: [seal(a), seal(b)], sig: 'S'.repeat(86) };
}

/** A valid frame of every type, with ids that need not exist. */
export function sampleFrames(peerId = SAMPLE_PEER_ID, chatId = SAMPLE_CHAT_ID): UpFrame[] {
  return [
    { t: 'hello', v: PROTOCOL_VERSION, lastSeq: null },
    { t: 'send', id: 'r1', to: peerId, msgId: 'msg-00000001', ct: sampleCiphertext() },
    { t: 'edit', id: 'r2', chatId, msgId: 'msg-00000001', ct: sampleCiphertext(1, 1) },
    { t: 'delete', id: 'r3', chatId, msgId: 'msg-00000001', ct: sampleCiphertext(1, 2) },
    { t: 'delivered', id: 'r4', chatId, msgIds: ['msg-00000001'] },
    { t: 'read', id: 'r5', peerId },
    { t: 'history', id: 'r6', peerId, before: { timestamp: 1, id: 'msg-00000001' }, limit: 20 },
    { t: 'chats', id: 'r7' },
    { t: 'users', id: 'r8', query: 'ali', after: 'al' },
    { t: 'user', id: 'r9', userId: peerId },
    { t: 'watch', id: 'r10', userIds: [peerId] },
    { t: 'typing', to: peerId, typing: true },
    { t: 'ping' },
    { t: 'chatFlags', id: 'r11', peerId, archived: true },
    { t: 'notifications', id: 'r12' },
    { t: 'notificationsSeen', id: 'r13' },
    { t: 'respondRequest', id: 'r14', notificationId: 'AAAAAAAAAAAAAAAAAAAA', accept: true },
    { t: 'keys', id: 'r15', userIds: [peerId] },
    { t: 'chatKeys', id: 'r16', chatId },
    { t: 'migrate', id: 'r17', chatId, items: [{ msgId: 'msg-00000001', ct: sampleCiphertext() }] },
  ];
}

export interface SampleBody {
  name: string;
  schema: z.ZodType;
  value: Record<string, unknown>;
}

/** What a browser derives from a password (keys.ts): `auth`, and new credentials. */
export const SAMPLE_AUTH = 'Cyd5q4JwouEsU_g8Tc_XO3LtImyigufWYcjr0P6pPZw';
export const SAMPLE_CREDENTIALS = {
  auth: '_DiNQIhw7iT5TFCECdh769GHqM4-mtY5NUFWr0uNFso',
  salt: 'pvAzrQZ15caF7wjtBHJbHA',
  kdf: { alg: 'scrypt', N: 2 ** 17, r: 8, p: 1 },
  /** The e-mail address's own credential; `wrap` is AES-GCM's 92 bytes. */
  email: {
    auth: 'q0Zc3G2xYxv2nW8Z8F3yO7rP1uT5mK9sD4hJ6eL0aBw',
    salt: 'Xk2mQ9rT4vB7nC1pZ8sW3g',
    wrap: 'Aa9'.repeat(41),
  },
};
/** An account's public keys and a sealed bundle (its format is the browser's business). */
export const SAMPLE_KEYS = {
  ik: 'cqerMYeIs2KOnxCtPcsO5j7rHdDODyRv2rB0Cjkfj64',
  ukEpoch: 1,
  uk: 'gxFqzxjk3EQUdi9YT_Q9mXn_LCsOnkj7yXsh4j1wBOw',
  ukSig: 'pKvURIxJVi2CgRXROh_M6pJ_UrTVRZKX-LQ-QtqJI4vBNibkPcs43bCCSIkn7JBPtCBXRDmD6IWFF51QVRr-Yg',
};
export const SAMPLE_BUNDLE = `AQ${'pvAzrQZ15caF7wjtBHJbHA'.repeat(6)}`;

/** A valid body (or query) of every HTTP request schema. */
export const SAMPLE_BODIES: SampleBody[] = [
  {
    name: 'signUp',
    schema: signUpRequestSchema,
    value: {
      name: 'Ada Lovelace',
      phone: '5551234567',
      age: 36,
      username: 'ada_l',
      email: 'ada@example.com',
      credentials: SAMPLE_CREDENTIALS,
      agree: true,
    },
  },
  { name: 'prelogin', schema: preloginSchema, value: { login: 'ada@example.com' } },
  {
    name: 'signIn',
    schema: signInRequestSchema,
    value: { login: 'ada@example.com', auth: SAMPLE_AUTH, remember: true },
  },
  {
    // An account from before end-to-end encryption signs in with its password, once.
    name: 'signInLegacy',
    schema: signInRequestSchema,
    value: { login: 'ada@example.com', password: 'secret123', remember: true },
  },
  {
    name: 'changeEmail',
    schema: changeEmailRequestSchema,
    value: { newEmail: 'ada2@example.com', auth: SAMPLE_AUTH },
  },
  {
    name: 'changePassword',
    schema: changePasswordRequestSchema,
    value: { auth: SAMPLE_AUTH, credentials: SAMPLE_CREDENTIALS, bundle: SAMPLE_BUNDLE, bundleVersion: 2 },
  },
  { name: 'verifyEmail', schema: verifyEmailSchema, value: { token: 'abcdefghijklmnopqrstuvwxyz' } },
  { name: 'forgotPassword', schema: forgotPasswordSchema, value: { email: 'ada@example.com' } },
  {
    name: 'resetPassword',
    schema: resetPasswordRequestSchema,
    value: { token: 'abcdefghijklmnopqrstuvwxyz', credentials: SAMPLE_CREDENTIALS },
  },
  {
    name: 'putKeys',
    schema: putKeysSchema,
    value: { bundle: SAMPLE_BUNDLE, bundleVersion: 1, keys: SAMPLE_KEYS },
  },
  {
    name: 'upgradeAuth',
    schema: upgradeAuthSchema,
    value: { password: 'secret123', credentials: SAMPLE_CREDENTIALS, keys: { ...SAMPLE_KEYS, bundle: SAMPLE_BUNDLE } },
  },
  {
    name: 'profile',
    schema: profileSchema,
    value: { name: 'Ada', phone: '5551234567', age: 36, profilePic: 'https://example.com/a.png' },
  },
  { name: 'privacy', schema: privacySchema, value: { readReceipts: true, lastSeen: false, requireRequest: true } },
  { name: 'setPin', schema: setPinSchema, value: { pin: '123456', auth: SAMPLE_AUTH } },
  { name: 'removePin', schema: removePinSchema, value: { auth: SAMPLE_AUTH } },
  { name: 'verifyPin', schema: verifyPinSchema, value: { pin: '123456' } },
  { name: 'adminUsersQuery', schema: adminUsersQuerySchema, value: { query: 'ada', after: 'a' } },
  { name: 'adminUserFlags', schema: adminUserFlagsSchema, value: { verified: true } },
  {
    name: 'broadcast',
    schema: broadcastInputSchema,
    value: { message: 'Hello all', videoUrl: 'https://youtu.be/dQw4w9WgXcQ', imageUrl: 'https://example.com/i.png' },
  },
  { name: 'helpLink', schema: helpLinkInputSchema, value: { helpLink: 'https://example.com/help' } },
  { name: 'auditQuery', schema: auditQuerySchema, value: { before: '1700000000000_abc' } },
];

export type Path = (string | number)[];

/** The paths of every string inside a JSON value. */
export function stringPaths(value: unknown, at: Path = []): Path[] {
  if (typeof value === 'string') return [at];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringPaths(v, [...at, i]));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => stringPaths(v, [...at, k]));
  }
  return [];
}

/** A copy of `value` with the value at `path` replaced. */
export function withValue<T>(value: T, path: Path, replacement: unknown): T {
  if (path.length === 0) return replacement as T;
  const [head, ...rest] = path as [string | number, ...Path];
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  copy[head] = withValue(copy[head], rest, replacement);
  return copy as T;
}

/** Reads the value at `path`. */
export function valueAt(value: unknown, path: Path): unknown {
  let v = value;
  for (const k of path) v = (v as Record<string | number, unknown>)[k];
  return v;
}
