/**
 * The attachments suites' server (attachments.test.ts, attachment-lifecycle.test.ts): one per
 * setup (SQLite, PostgreSQL when TEST_DATABASE_URL is set; blobs in files, and in a real
 * S3-speaking server on SQLite), with small limits, and the helpers the suites share.
 */
import { ENGINES, LOOSE_LIMITS, useTestServer } from './harness.ts';
import { useS3 } from './s3.ts';
import { WsTestClient } from './ws-client.ts';

/** The largest file, and each user's quota, on these servers. */
export const ATTACHMENT_TEST_MAX = 300_000;
export const ATTACHMENT_TEST_QUOTA = 700_000;

/** Each engine with blobs in files, and SQLite with blobs in S3. */
export const ATTACHMENT_SETUPS: { name: string; url: string; s3: boolean; store: string }[] = [
  ...ENGINES.map((e) => ({ ...e, s3: false, store: 'files' })),
  { name: 'SQLite', url: '', s3: true, store: 'S3' },
];

/** `n` bytes that are not all alike. */
export function noise(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 7919 + 13) & 0xff;
  return out;
}

type Person = { user: { id: string }; client: { cookie: string | null } };

/** A server of `setup` for a describe block, and what its tests ask of it. */
export function useAttachmentServer(setup: { url: string; s3: boolean }, tag: string) {
  const bucket = setup.s3 ? useS3() : null;
  const t = useTestServer({
    engine: setup.url,
    tag,
    config: {
      rateLimits: LOOSE_LIMITS,
      attachmentMaxBytes: ATTACHMENT_TEST_MAX,
      attachmentQuotaBytes: ATTACHMENT_TEST_QUOTA,
      get s3() {
        return bucket?.settings ?? null;
      },
    },
  });
  const cookieOf = (u: { client: { cookie: string | null } }) => u.client.cookie as string;
  /** The bytes of attachments `userId` keeps (their quota's count). */
  const usedBy = async (userId: string) =>
    Number(
      (
        await t.server.ctx.attachments.store.db
          .selectFrom('users')
          .select('attachment_bytes')
          .where('id', '=', userId)
          .executeTakeFirstOrThrow()
      ).attachment_bytes,
    );
  /** Whether the blob store has the blob (or upload). */
  const stored = async (id: string) => (await t.server.ctx.attachments.blobs.offset(id)) !== null;
  /** `from` sends `to` a message carrying `ids`; the message. */
  async function sendWith(
    from: Person,
    to: string,
    ids: string[],
    msgId = `att-${Math.random().toString(36).slice(2, 12)}`,
  ) {
    const ws = await WsTestClient.connect(t, cookieOf(from));
    try {
      const body = await ws.sealedSend(to, 'a photo', msgId);
      return (await ws.request('send', { ...body, attachments: ids })) as { message: { id: string; chatId: string } };
    } finally {
      await ws.close();
    }
  }
  return { t, cookieOf, usedBy, stored, sendWith };
}
