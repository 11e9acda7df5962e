/**
 * Property: any interleaving of sends, edits, deletes, reads, dropped connections and
 * offline spells, done through two users' real ChatClients, ends with both clients
 * showing exactly the server's history (every message once, with its last revision and
 * status), and both opening every message to the same text: the last one its sender
 * wrote (messages are sealed end to end; the server's copy is ciphertext). The clients
 * build what they show only from their loads, the pushed updates and the updates
 * replayed on resume.
 */
import { type ChatMessage, chatIdOf, DELETED_TEXT } from '@app/protocol';
import { ENGINES, LOOSE_LIMITS, startEngineServer, type TestServer } from '@app/server/test';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, online, openTab, shown, type TestTab, type TestUser, textsNow, until } from '@/test/chat-clients';

type Who = 0 | 1;
type Op =
  | { op: 'send'; who: Who; text: string }
  | { op: 'edit'; who: Who; pick: number; text: string }
  | { op: 'delete'; who: Who; pick: number }
  | { op: 'read'; who: Who }
  | { op: 'cut'; who: Who }
  | { op: 'offline'; who: Who };

const who = fc.constantFrom<Who>(0, 1);
const text = fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim().length > 0);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('send' as const), who, text }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('edit' as const), who, pick: fc.nat(), text }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), who, pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('read' as const), who }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('cut' as const), who }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('offline' as const), who }) },
);

interface Side {
  user: TestUser;
  tab: TestTab;
}

/** What must agree with the server: everything a message shows but its text (sealed: `ct` and `rev`). */
const essence = (m: ChatMessage) => ({
  id: m.id,
  senderId: m.senderId,
  ct: m.ct,
  rev: m.rev,
  timestamp: m.timestamp,
  status: m.status,
  edited: m.edited,
  deleted: m.deleted,
});

/** One of `me`'s confirmed, not deleted messages (edits and deletes of a deleted one are refused). */
function pickOwn(me: Side, peer: Side, pick: number): ChatMessage | undefined {
  const own = shown(me.tab, peer.user.id).filter((m) => m.senderId === me.user.id && !m.deleted);
  return own[pick % Math.max(1, own.length)];
}

/** Runs one operation through `me`'s client. A refusal the server may rightly give is ignored. */
async function run(o: Op, me: Side, peer: Side): Promise<void> {
  const { client, env } = me.tab;
  const ignoreRefusal = (e: unknown) => {
    if (!(e instanceof Error)) throw e;
  };
  switch (o.op) {
    case 'send':
      expect(client.sendMessage(peer.user.id, o.text)).toBeNull();
      return;
    case 'edit':
    case 'delete': {
      const m = pickOwn(me, peer, o.pick);
      if (!m || client.status !== 'online') return;
      await (o.op === 'edit' ? client.editMessage(m, o.text) : client.deleteMessage(m)).catch(ignoreRefusal);
      return;
    }
    case 'read':
      client.markRead(peer.user.id);
      return;
    case 'cut':
      env.cut();
      return;
    case 'offline':
      env.goOffline();
      await new Promise((r) => setTimeout(r, 20));
      env.goOnline();
      return;
  }
}

describe.each(ENGINES)('convergence through two real ChatClients ($name)', ({ url }) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startEngineServer(url, 'webconv', { config: { rateLimits: LOOSE_LIMITS } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('both users always end showing the server history', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 20 }), async (ops) => {
        const users: [TestUser, TestUser] = [await newUser(t), await newUser(t)];
        const sides = users.map((user) => ({ user, tab: openTab(t, user) })) as [Side, Side];
        try {
          await Promise.all(sides.map((s) => online(s.tab)));
          for (const [i, s] of sides.entries()) s.tab.client.openConversation(users[1 - i]?.id as string);
          for (const o of ops) await run(o, sides[o.who], sides[o.who === 0 ? 1 : 0]);
          const chatId = chatIdOf(users[0].id, users[1].id);
          const sends = ops.filter((o) => o.op === 'send').length;
          let server = '';
          const view = (i: number) =>
            JSON.stringify(shown((sides[i] as Side).tab, users[1 - i]?.id as string).map(essence));
          /** What the client opens its confirmed messages to (null while any is still opening). */
          const texts = (i: number) => {
            const tab = (sides[i] as Side).tab;
            const peerId = users[1 - i]?.id as string;
            const all = textsNow(tab, peerId);
            const confirmed = tab.client.getConversation(peerId).messages.map((m) => !m.pending && !m.failed);
            return all === null ? null : JSON.stringify(all.filter((_, j) => confirmed[j]));
          };
          // The outbox and the receipts settle asynchronously: poll until every send is
          // stored and both clients show what the server has, opened alike.
          await until(
            () => {
              void t.server.ctx.chat.history(chatId, 200).then((p) => {
                server = p.messages.length === sends ? JSON.stringify(p.messages.map(essence)) : '';
              });
              const t0 = texts(0);
              return server !== '' && view(0) === server && view(1) === server && t0 !== null && t0 === texts(1);
            },
            'both clients to show the server history, opened to the same texts',
            10_000,
          ).catch((e: Error) => {
            const state = sides.map((s, i) => `${s.tab.client.status} ${view(i)} ${texts(i)}`).join('\n');
            throw new Error(`${e.message}\nserver ${server}\n${state}`);
          });
          // Every message opens to a text its sender wrote: none fails to open.
          const opened = JSON.parse(texts(0) as string) as string[];
          const written = new Set(ops.flatMap((o) => (o.op === 'send' || o.op === 'edit' ? [o.text] : [])));
          expect(opened.filter((x) => x !== DELETED_TEXT && !written.has(x))).toEqual([]);
          // One never edited opens to a text that was sent.
          const kept = JSON.parse(server) as { rev: number; deleted: boolean }[];
          const sent = new Set(ops.flatMap((o) => (o.op === 'send' ? [o.text] : [])));
          const unedited = opened.filter((_, j) => kept[j]?.rev === 0 && !kept[j]?.deleted);
          expect(unedited.filter((x) => !sent.has(x))).toEqual([]);
        } finally {
          for (const s of sides) s.tab.stop();
        }
      }),
      // No shrinking: each failed run waits out its 10 s, and the first counterexample says enough.
      { numRuns: 15, endOnFailure: true },
    );
  }, 180_000);
});
