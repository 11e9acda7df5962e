/**
 * The baseline: a bare `ws` relay with no storage, no auth and no validation beyond
 * JSON.parse. A client says hello with its user id; a `send` is forwarded to the
 * recipient as a message update and acknowledged to the sender, in the same shapes the
 * real server uses. Prints `{"port":…}` when listening.
 */
import { type WebSocket, WebSocketServer } from 'ws';

// Started with --expose-gc: SIGUSR2 collects garbage (memory is measured after it).
const gc = (globalThis as { gc?: () => void }).gc;
if (gc) process.on('SIGUSR2', () => gc());

const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false, maxPayload: 64 * 1024 });
const byUser = new Map<string, WebSocket>();
let seq = 0;

wss.on('connection', (ws) => {
  let me: string | null = null;
  ws.on('message', (data) => {
    let f: { t?: string; id?: string; to?: string; msgId?: string; ct?: string; userId?: string };
    try {
      f = JSON.parse(data.toString());
    } catch {
      return;
    }
    if (f.t === 'hello' && typeof f.userId === 'string') {
      me = f.userId;
      byUser.set(me, ws);
      ws.send(JSON.stringify({ t: 'welcome', userId: me, seq: 0, resumed: false }));
      return;
    }
    if (f.t === 'send' && me && typeof f.to === 'string') {
      const message = {
        id: f.msgId,
        senderId: me,
        recipientId: f.to,
        ct: f.ct,
        rev: 0,
        timestamp: Date.now(),
        status: 'sent',
      };
      byUser.get(f.to)?.send(JSON.stringify({ t: 'update', seq: ++seq, update: { kind: 'message', message } }));
      ws.send(JSON.stringify({ t: 'result', id: f.id, data: { message } }));
    }
  });
  ws.on('close', () => {
    if (me && byUser.get(me) === ws) byUser.delete(me);
  });
  ws.on('error', () => {});
});

wss.on('listening', () => {
  const address = wss.address();
  if (address && typeof address === 'object') console.log(JSON.stringify({ port: address.port }));
});
