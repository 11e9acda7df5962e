import { useEffect, useSyncExternalStore } from 'react';
import { type PeerTrust, refreshTrust, subscribeTrust, trustOf } from '@/client/keys/peer-trust';
import { useChatClient } from '@/hooks/chat-hooks';

/**
 * The peer's identities and verified mark (keys/peer-trust.ts): fetched from the server
 * when the chat opens, and read again when the tab finds their identity changed (a chat key
 * signed by a new one, or a send told the keys moved).
 */
export function usePeerTrust(peerId: string): PeerTrust | null {
  const client = useChatClient();
  const get = () => (client ? trustOf(client.userId, peerId) : null);
  const trust = useSyncExternalStore(subscribeTrust, get, get);
  useEffect(() => {
    if (!client || !peerId) return;
    void refreshTrust(client.keys, client.userId, peerId, true);
    const stops = [
      client.keys.onIdentityChange((id) => {
        if (id === peerId) void refreshTrust(client.keys, client.userId, peerId);
      }),
      // Another browser verified, accepted or pinned: the account data changed.
      client.keys.data.onChange(() => void refreshTrust(client.keys, client.userId, peerId)),
    ];
    return () => {
      for (const stop of stops) stop();
    };
  }, [client, peerId]);
  return trust;
}
