/**
 * A chat's media from the server, page by page (`history` with `media`: the messages that
 * carry attachments, newest first; docs/attachments.md "Showing"). The photo viewer and the
 * chat info's "Media and files" join them to the conversation's own messages, so they cover
 * the whole chat, not only what is scrolled to. Fetched afresh each time a screen opens them;
 * the conversation's copy of a message wins (it follows edits and deletions live).
 */
import { type ChatMessage, HISTORY_PAGE } from '@app/protocol';
import type { ChatSocket } from '../socket/chat-socket';

export interface MediaPage {
  /** Oldest first. */
  readonly messages: readonly ChatMessage[];
  /** Older media exist on the server. */
  readonly hasMore: boolean;
  readonly loading: boolean;
}

const EMPTY: MediaPage = Object.freeze({ messages: [], hasMore: false, loading: false });

export class MediaPages {
  private readonly socket: ChatSocket;
  private readonly changed: () => void;
  private readonly byPeer = new Map<string, MediaPage>();
  /** Which fetch of each chat is the current one (an older one's answer is dropped). */
  private readonly generation = new Map<string, number>();

  constructor(socket: ChatSocket, changed: () => void) {
    this.socket = socket;
    this.changed = changed;
  }

  view(peerId: string): MediaPage {
    return this.byPeer.get(peerId) ?? EMPTY;
  }

  /** The newest page again (a screen showing the chat's media opened). */
  refresh(peerId: string): Promise<void> {
    return this.fetch(peerId, true);
  }

  /** The page before the oldest loaded, if there is one. */
  loadOlder(peerId: string): Promise<void> {
    const now = this.view(peerId);
    if (!now.hasMore || now.loading) return Promise.resolve();
    return this.fetch(peerId, false);
  }

  /** Forgets a chat's pages (its screens closed). */
  drop(peerId: string): void {
    this.byPeer.delete(peerId);
    this.generation.set(peerId, (this.generation.get(peerId) ?? 0) + 1);
  }

  private async fetch(peerId: string, fresh: boolean): Promise<void> {
    const gen = (this.generation.get(peerId) ?? 0) + 1;
    this.generation.set(peerId, gen);
    const before = fresh ? undefined : this.view(peerId).messages[0];
    const kept = fresh ? [] : this.view(peerId).messages;
    this.byPeer.set(peerId, { ...this.view(peerId), loading: true });
    this.changed();
    try {
      const r = await this.socket.request('history', {
        peerId,
        media: true,
        limit: HISTORY_PAGE,
        ...(before ? { before: { timestamp: before.timestamp, id: before.id } } : {}),
      });
      if (this.generation.get(peerId) !== gen) return;
      this.byPeer.set(peerId, { messages: [...r.messages, ...kept], hasMore: r.hasMore, loading: false });
    } catch {
      // Offline or refused: what is loaded stays, and the next opening asks again.
      if (this.generation.get(peerId) === gen) this.byPeer.set(peerId, { ...this.view(peerId), loading: false });
    }
    this.changed();
  }
}
