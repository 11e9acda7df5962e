/**
 * Backups encrypted to the operator's age public keys (BACKUP_AGE_RECIPIENTS or
 * `--encrypt-to`), in the age format (age-encryption.org/v1, the `age-encryption` package):
 * a backup holds the database and the session secret, so one kept off the machine should be
 * unreadable to whoever holds the copy. The `age` command opens it (`age -d -i key.txt`), and
 * so do `restore` and `verify-backup` given `--identity key.txt`. Streamed: the archive is
 * never held in memory whole.
 */
import { closeSync, createReadStream, createWriteStream, openSync, readFileSync, readSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { Decrypter, Encrypter } from 'age-encryption';

/** A file in the age format starts with this line. */
const AGE_HEADER = 'age-encryption.org/v1\n';

/** Whether `file` is in the age format (read from its first bytes, not its name). */
export function isAgeFile(file: string): boolean {
  const head = Buffer.alloc(AGE_HEADER.length);
  const fd = openSync(file, 'r');
  try {
    const n = readSync(fd, head, 0, head.length, 0);
    return head.subarray(0, n).toString('latin1') === AGE_HEADER;
  } finally {
    closeSync(fd);
  }
}

const webStreamOf = (file: string) => Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>;

/** Writes a web stream to `to`, readable by its owner only. */
function save(stream: ReadableStream<Uint8Array>, to: string): Promise<void> {
  return pipeline(Readable.fromWeb(stream as NodeReadableStream<Uint8Array>), createWriteStream(to, { mode: 0o600 }));
}

/** Encrypts `from` into `to` for every recipient (any one of their identities opens it). */
export async function encryptFile(from: string, to: string, recipients: readonly string[]): Promise<void> {
  const e = new Encrypter();
  for (const r of recipients) e.addRecipient(r);
  await save(await e.encrypt(webStreamOf(from)), to);
}

/** The identities (`AGE-SECRET-KEY-1…` lines) of an age key file, as `age-keygen` writes it. */
export function identitiesIn(keyFile: string): string[] {
  const keys = readFileSync(keyFile, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('AGE-SECRET-KEY-'));
  if (keys.length === 0) throw new Error(`${keyFile} holds no age identity (AGE-SECRET-KEY-1…)`);
  return keys;
}

/** Decrypts `from` into `to` with the identities of `keyFile`; throws when none opens it. */
export async function decryptFile(from: string, to: string, keyFile: string): Promise<void> {
  const d = new Decrypter();
  for (const k of identitiesIn(keyFile)) d.addIdentity(k);
  await save(await d.decrypt(webStreamOf(from)), to);
}
