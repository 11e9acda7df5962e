/**
 * Under the chats that match the list's search: "Messages", the messages that say it, from
 * this browser's search index (locked chats left out), newest first. Each opens its chat
 * at the message. While older history is still being read, the indexing line shows there.
 */
import { peerOf } from '@app/protocol';
import { Link } from 'react-router';
import type { SearchHit } from '@/client/search/search-index';
import { quotedSender } from '@/components/chat/reply-quote';
import { IndexingStatus } from '@/components/search/indexing-status';
import { SearchHitText } from '@/components/search/search-hit-row';
import { useChatClient } from '@/hooks/chat-hooks';
import { useMessageSearch } from '@/hooks/use-message-search';

function HitLink({ hit, me, now }: { hit: SearchHit; me: string; now: number }) {
  const client = useChatClient();
  const peerId = peerOf(hit.message.chatId, me);
  const peer = client?.getUser(peerId);
  const handle = peer ? `@${peer.username}` : 'Someone';
  const sender = quotedSender(hit.message.senderId, { me, peerId, peerHandle: handle });
  return (
    <Link
      to={`/chat/${peerId}`}
      state={{ jumpTo: hit.message.msgId }}
      className="flex items-start gap-3 px-4 py-3 hover:bg-accent focus-visible:bg-accent focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-ring"
    >
      <SearchHitText hit={hit} sender={sender === 'You' ? `You · ${handle}` : sender} now={now} />
    </Link>
  );
}

export function MessageResults({ query, now }: { query: string; now: number }) {
  const client = useChatClient();
  const hits = useMessageSearch(query, undefined, 30);
  if (!client || !query.trim()) return null;
  return (
    <section aria-labelledby="message-results" className="border-t border-border">
      <h2
        id="message-results"
        className="px-4 pb-1 pt-3 text-xs font-semibold uppercase tracking-wide text-muted-foreground"
      >
        Messages
      </h2>
      <IndexingStatus />
      {hits.length === 0 ? (
        <p className="px-4 pb-4 pt-1 text-sm text-muted-foreground">No messages match “{query.trim()}”</p>
      ) : (
        <ul aria-label="Messages found" className="divide-y divide-border">
          {hits.map((h) => (
            <li key={`${h.message.chatId}/${h.message.msgId}`}>
              <HitLink hit={h} me={client.userId} now={now} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
