/**
 * A socket that sends several messages without waiting for their answers has them queued
 * for commit together: each is answered by its id, each chat's messages are stored in the
 * order they were sent, and a frame that is not a send (an edit of one of them) waits for
 * the sends before it. Runs on SQLite, and on PostgreSQL too when TEST_DATABASE_URL is set.
 */
import { chatIdOf } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { ENGINES, LOOSE_LIMITS, useTestServer } from '../test/harness.ts';
import { METRICS_TEST_TOKEN, sample, scrape } from '../test/metrics-scrape.ts';
import { connectedPerson } from '../test/people.ts';

describe.each(ENGINES)('sends without waiting, on $name', ({ url }) => {
  const t = useTestServer({
    engine: url,
    tag: 'pipelined',
    config: { rateLimits: LOOSE_LIMITS },
    env: { METRICS_TOKEN: METRICS_TEST_TOKEN },
  });
  const commits = async () => sample((await scrape(t)).text, 'parley_group_commit_jobs_count') ?? 0;

  it('are answered by id, stored in order per chat, and an edit right after its send applies', async () => {
    const a = await connectedPerson(t);
    const b = await connectedPerson(t);
    const c = await connectedPerson(t);
    await a.ws.sendMessage(b.user.id, 'hi b');
    await a.ws.sendMessage(c.user.id, 'hi c');
    // Sealed first (that waits for keys), then all written at once: 24 to b, 8 to c, interleaved.
    const frames = [];
    for (let i = 0; i < 32; i++) {
      const to = i % 4 === 3 ? c.user.id : b.user.id;
      frames.push(await a.ws.sealedSend(to, `message ${i}`));
    }
    const first = frames[0] as (typeof frames)[number];
    const edit = await a.ws.sealedEdit(chatIdOf(a.user.id, b.user.id), first.msgId, 'message 0, edited', 1);
    const before = await commits();
    const answers = frames.map((f) => a.ws.request('send', f));
    const edited = a.ws.request('edit', edit);
    const results = await Promise.all(answers);
    expect(results.map((r) => ('message' in r ? r.message.id : null))).toEqual(frames.map((f) => f.msgId));
    expect((await edited).message).toMatchObject({ id: first.msgId, rev: 1, edited: true });
    // Not one commit each: the socket's sends did not wait for each other.
    expect((await commits()) - before).toBeLessThan(frames.length / 2);
    const history = async (peerId: string) => (await a.ws.request('history', { peerId })).messages;
    for (const peer of [b, c]) {
      const messages = await history(peer.user.id);
      const sent = frames.filter((f) => f.to === peer.user.id).map((f) => f.msgId);
      expect(messages.slice(1).map((m) => m.id)).toEqual(sent);
      for (let i = 1; i < messages.length; i++) {
        expect(messages[i]?.timestamp).toBeGreaterThan(messages[i - 1]?.timestamp as number);
      }
    }
    expect((await b.ws.historyTexts(a.user.id))[1]).toBe('message 0, edited');
  });
});
