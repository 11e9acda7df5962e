/**
 * People who only write: an account made through the API with its keys held in this
 * process, and a socket that seals with them as a browser does (the server's test Sealer
 * and WsTestClient). Cheaper than a browser of their own where a test looks at what one
 * person sees of others' messages, not at how the others send them.
 */
import { Sealer, type TestServer, WsTestClient } from '@app/server/test';
import { E2E_BASE_URL } from '../env.ts';
import { apiSignUp } from './api-accounts.ts';
import { makeUser, type NewUser } from './fixtures.ts';

export interface NodePeer {
  user: NewUser;
  id: string;
  /** '@username' */
  handle: string;
  ws: WsTestClient;
  /** Sends `text` to `to`, sealed end to end; resolves once the server stored it. */
  send(to: { id: string }, text: string): Promise<void>;
  close(): Promise<void>;
}

/** A new user with a socket of their own, on the suite's server. */
export async function nodePeer(prefix: string): Promise<NodePeer> {
  const user = makeUser(prefix);
  const { id, client, secrets } = await apiSignUp(E2E_BASE_URL, user);
  const sealer = Sealer.register(id, secrets.contents);
  const ws = await WsTestClient.connect({ url: E2E_BASE_URL } as TestServer, client.cookie);
  ws.sealer = sealer;
  sealer.ws = ws;
  return {
    user,
    id,
    handle: `@${user.username}`,
    ws,
    async send(to, text) {
      await ws.sendMessage(to.id, text);
    },
    close: () => ws.close(),
  };
}
