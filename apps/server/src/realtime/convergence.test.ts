/**
 * Property: any interleaving of sends, edits, deletes, deliveries, reads and
 * disconnects leaves both users' replicas (built only from pushed and replayed
 * updates) identical to each other and to the server's history.
 */
import { type ChatMessage, chatIdOf } from '@app/protocol';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOSE_LIMITS, signUp, startTestServer, type TestServer } from '../test/harness.ts';
import { WsTestClient } from '../test/ws-client.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ config: { rateLimits: LOOSE_LIMITS } });
});
afterAll(async () => {
  await t?.close();
});

type Op =
  | { op: 'send'; who: 0 | 1; text: string }
  | { op: 'edit'; who: 0 | 1; pick: number; text: string }
  | { op: 'delete'; who: 0 | 1; pick: number }
  | { op: 'delivered'; who: 0 | 1 }
  | { op: 'read'; who: 0 | 1 }
  | { op: 'drop'; who: 0 | 1 };

const who = fc.constantFrom<0 | 1>(0, 1);
const text = fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim().length > 0);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('send' as const), who, text }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('edit' as const), who, pick: fc.nat(), text }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), who, pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delivered' as const), who }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('read' as const), who }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('drop' as const), who }) },
);

interface Side {
  id: string;
  cookie: string;
  ws: WsTestClient;
  replica: Map<string, ChatMessage>;
  applied: number;
}

function absorb(side: Side): void {
  const frames = side.ws.updates().slice(side.applied);
  side.applied += frames.length;
  for (const f of frames) if (f.update.kind === 'message') side.replica.set(f.update.message.id, f.update.message);
}

async function reconnect(side: Side, peerId: string): Promise<void> {
  absorb(side);
  const lastSeq = side.ws.lastSeq;
  await side.ws.close();
  side.ws = await WsTestClient.connect(t, side.cookie, lastSeq);
  side.applied = 0;
  if (!side.ws.welcome?.resumed) {
    side.replica.clear();
    for (const m of (await side.ws.request('history', { peerId, limit: 200 })).messages) side.replica.set(m.id, m);
  }
}

const sorted = (m: Map<string, ChatMessage>) =>
  [...m.values()].sort((x, y) => x.timestamp - y.timestamp || (x.id < y.id ? -1 : 1));

describe('convergence', () => {
  it('two users always end with the same history', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 25 }), async (ops) => {
        run += 1;
        const ua = await signUp(t);
        const ub = await signUp(t);
        const sides: [Side, Side] = [
          {
            id: ua.user.id,
            cookie: ua.client.cookie as string,
            ws: await WsTestClient.connect(t, ua.client.cookie),
            replica: new Map(),
            applied: 0,
          },
          {
            id: ub.user.id,
            cookie: ub.client.cookie as string,
            ws: await WsTestClient.connect(t, ub.client.cookie),
            replica: new Map(),
            applied: 0,
          },
        ];
        const chatId = chatIdOf(ua.user.id, ub.user.id);
        const sent: [string[], string[]] = [[], []];
        let k = 0;
        for (const o of ops) {
          const me = sides[o.who];
          const peer = sides[o.who === 0 ? 1 : 0];
          switch (o.op) {
            case 'send': {
              const msgId = `prop-${run}-${++k}-${o.who}`;
              await me.ws.request('send', { to: peer.id, msgId, text: o.text });
              sent[o.who].push(msgId);
              break;
            }
            case 'edit':
            case 'delete': {
              const mine = sent[o.who];
              if (mine.length === 0) break;
              const msgId = mine[o.pick % mine.length];
              const body = o.op === 'edit' ? { chatId, msgId, text: o.text } : { chatId, msgId };
              await me.ws.request(o.op, body).catch((e: { frame?: { code: string } }) => {
                if (e.frame?.code !== 'conflict') throw e; // editing a deleted message is refused
              });
              break;
            }
            case 'delivered': {
              absorb(me);
              const ids = [...me.replica.values()]
                .filter((m) => m.recipientId === me.id && m.status === 'sent')
                .map((m) => m.id);
              if (ids.length) await me.ws.request('delivered', { chatId, msgIds: ids });
              break;
            }
            case 'read':
              await me.ws.request('read', { peerId: peer.id });
              break;
            case 'drop':
              await reconnect(me, peer.id);
              break;
          }
        }
        // Quiesce: a final ping round-trip on each socket flushes everything pushed before it.
        for (const s of sides) {
          await s.ws.request('chats');
          absorb(s);
        }
        const server = (await sides[0].ws.request('history', { peerId: sides[1].id, limit: 200 })).messages;
        expect(sorted(sides[0].replica)).toEqual(server);
        expect(sorted(sides[1].replica)).toEqual(server);
        for (const s of sides) await s.ws.close();
      }),
      { numRuns: 30 },
    );
  }, 120_000);
});
