/**
 * A chat's media from the server, page by page (`history` with `media`: the messages that
 * carry attachments, newest first; docs/attachments.md "Showing"). The photo viewer and the
 * chat info's "Media and files" join them to the conversation's own messages, so they cover
 * the whole chat, not only what is scrolled to. Fetched afresh when the first screen showing
 * them opens, and forgotten when the last closes; the conversation's copy of a message wins
 * (it follows edits and deletions live). A failed fetch is not tried again by itself.
 */
import { type ChatMessage, HISTORY_PAGE } from '@app/protocol';
import type { ChatSocket } from '../socket/chat-socket';

export interface MediaPage {
  /** Oldest first. */
  readonly messages: readonly ChatMessage[];
  /** Older media exist on the server. */
  readonly hasMore: boolean;
  readonly loading: boolean;
  /** The last fetch failed (offline, refused): older pages wait for the user to ask again. */
  readonly failed: boolean;
}

const EMPTY: MediaPage = Object.freeze({ messages: [], hasMore: false, loading: false, failed: false });

export class MediaPages {
  private readonly socket: ChatSocket;
  private readonly changed: () => void;
  private readonly byPeer = new Map<string, MediaPage>();
  /** How many screens show each chat's media now. */
  private readonly users = new Map<string, number>();
  /** Which fetch of each chat is the current one (an older one's answer is dropped). */
  private readonly generation = new Map<string, number>();

  constructor(socket: ChatSocket, changed: () => void) {
    this.socket = socket;
    this.changed = changed;
  }

  view(peerId: string): MediaPage {
    return this.byPeer.get(peerId) ?? EMPTY;
  }

  /**
   * A screen shows the chat's media: the first one fetches the newest page. Returns the
   * release; when the last screen lets go, the pages are forgotten.
   */
  open(peerId: string): () => void {
    const n = (this.users.get(peerId) ?? 0) + 1;
    this.users.set(peerId, n);
    if (n === 1) void this.refresh(peerId);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.users.get(peerId) ?? 1) - 1;
      if (left > 0) this.users.set(peerId, left);
      else {
        this.users.delete(peerId);
        this.drop(peerId);
      }
    };
  }

  /** The newest page again, in place of what is loaded. */
  private refresh(peerId: string): Promise<void> {
    return this.fetch(peerId, true);
  }

  /** The page before the oldest loaded, if there is one (the newest again after it failed). */
  loadOlder(peerId: string): Promise<void> {
    const now = this.view(peerId);
    if (now.loading) return Promise.resolve();
    if (now.failed && now.messages.length === 0) return this.fetch(peerId, true);
    if (!now.hasMore) return Promise.resolve();
    return this.fetch(peerId, false);
  }

  /** Forgets a chat's pages (its last screen closed). */
  private drop(peerId: string): void {
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
      this.byPeer.set(peerId, {
        messages: [...r.messages, ...kept],
        hasMore: r.hasMore,
        loading: false,
        failed: false,
      });
    } catch {
      // Offline or refused: what is loaded stays, and the user (or the next opening) asks again.
      if (this.generation.get(peerId) === gen) {
        this.byPeer.set(peerId, { ...this.view(peerId), loading: false, failed: true });
      }
    }
    this.changed();
  }
}
