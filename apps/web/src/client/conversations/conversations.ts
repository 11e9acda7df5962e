/**
 * The conversations a ChatClient holds: the pages of messages loaded for each peer a
 * screen shows, loaded newest first and older on demand, and reloaded after a reconnect
 * that could not resume.
 */
import { type Access, type ChatMessage, chatIdOf, HISTORY_PAGE, type Reaction, type Update } from '@app/protocol';
import { type ChatSocket, RequestError } from '../socket/chat-socket';
import type { UpdateReplay } from '../update-replay';
import type { UserDirectory } from '../user-directory';
import { errorText } from './chat-list';
import { type ConversationView, EMPTY_CONVERSATION, type UiMessage } from './conversation';
import { ConversationState } from './conversation-state';

export interface ConversationsDeps {
  userId: string;
  socket: ChatSocket;
  users: UserDirectory;
  replay: UpdateReplay;
  apply(u: Update): void;
  /** A message of a loaded page (acknowledged if new to us, settled if ours). */
  seen(m: ChatMessage): void;
  setAccess(peerId: string, access: Access): void;
  /** A loaded page's messages and their reactions. */
  reactions(chatId: string, msgIds: readonly string[], reactions: readonly Reaction[]): void;
  /** The messages to `peerId` still in the outbox. */
  pending(peerId: string): UiMessage[];
  /** No screen shows the conversation any more. */
  closed(peerId: string): void;
  changed(): void;
  destroyed(): boolean;
}

/** An update a page of the chat may be older than: its messages, and reactions to them. */
function isMessageOf(chatId: string): (u: Update) => boolean {
  return (u) =>
    (u.kind === 'message' && u.message.chatId === chatId) || (u.kind === 'reaction' && u.reaction.chatId === chatId);
}

export class Conversations {
  private readonly map = new Map<string, ConversationState>();
  private readonly deps: ConversationsDeps;

  constructor(deps: ConversationsDeps) {
    this.deps = deps;
  }

  get(peerId: string): ConversationState | undefined {
    return this.map.get(peerId);
  }

  isOpen(peerId: string): boolean {
    return (this.map.get(peerId)?.opens ?? 0) > 0;
  }

  /** A screen shows this conversation: load its newest page if needed. Returns the release. */
  open(peerId: string): () => void {
    let conv = this.map.get(peerId);
    if (!conv) {
      conv = new ConversationState(peerId, chatIdOf(this.deps.userId, peerId));
      this.map.set(peerId, conv);
    }
    const c = conv;
    c.opens += 1;
    if (c.status === 'idle' || c.status === 'error') void this.loadNewest(c);
    return () => {
      c.opens -= 1;
      if (c.opens === 0) this.deps.closed(peerId);
    };
  }

  view(peerId: string): ConversationView {
    const c = this.map.get(peerId);
    return c ? c.view(() => this.deps.pending(peerId)) : EMPTY_CONVERSATION;
  }

  /** Something of a chat's messages changed (a reaction): the screens showing it redraw. */
  touchChat(chatId: string): void {
    for (const c of this.map.values()) if (c.chatId === chatId) c.touch();
  }

  /** A peer changed (profile, access): the screens showing them redraw. */
  touch(peerId: string): void {
    for (const c of this.map.values()) if (c.peerId === peerId) c.touch();
  }

  /**
   * After a welcome: a fresh start reloads what is shown and forgets the rest; a resume
   * loads only what had not loaded.
   */
  welcomed(resumed: boolean): void {
    for (const [peerId, c] of this.map) {
      if (c.opens === 0) {
        if (!resumed) this.map.delete(peerId);
      } else if (!resumed || c.status !== 'ready') void this.loadNewest(c);
    }
  }

  /** A PIN grant opens locked chats: those shown reload, the others are forgotten. */
  unlocked(isLocked: (chatId: string) => boolean): void {
    for (const c of this.map.values()) {
      if (c.locked || isLocked(c.chatId)) {
        if (c.opens > 0) void this.loadNewest(c);
        else this.map.delete(c.peerId);
      }
    }
  }

  /** Loads (or reloads) the newest page; it replaces what was loaded before. */
  private async loadNewest(c: ConversationState): Promise<void> {
    const { socket, replay } = this.deps;
    if (socket.status !== 'online') return; // loaded on welcome
    const generation = ++c.generation;
    if (c.status !== 'ready') c.status = 'loading';
    c.touch();
    this.deps.changed();
    const start = replay.begin();
    let ok = false;
    try {
      const r = await socket.request('history', { peerId: c.peerId, limit: HISTORY_PAGE });
      if (generation !== c.generation || this.deps.destroyed()) return;
      this.deps.users.remember(r.peer, c.peerId);
      this.deps.setAccess(c.peerId, r.access);
      c.locked = false;
      c.replace(r.messages, r.hasMore);
      this.deps.reactions(
        c.chatId,
        r.messages.map((m) => m.id),
        r.reactions ?? [],
      );
      ok = true;
      for (const m of r.messages) this.deps.seen(m);
    } catch (e) {
      if (generation !== c.generation) return;
      if (e instanceof RequestError && e.code === 'locked') {
        // Locked and no PIN grant: whatever was loaded before is dropped from view.
        c.locked = true;
        c.replace([], false);
        c.status = 'error';
      } else if (c.status !== 'ready') c.status = 'error';
      c.error = errorText(e);
    } finally {
      replay.end(start, (u) => ok && isMessageOf(c.chatId)(u), this.deps.apply);
      c.touch();
      this.deps.changed();
    }
  }

  /** Loads the page before the oldest loaded message. */
  async loadOlder(peerId: string): Promise<void> {
    const { socket, replay } = this.deps;
    const c = this.map.get(peerId);
    const oldest = c?.oldest();
    if (!c || !oldest || c.status !== 'ready' || !c.hasMore || c.loadingOlder) return;
    if (socket.status !== 'online') return;
    const generation = c.generation;
    c.loadingOlder = true;
    c.touch();
    this.deps.changed();
    const start = replay.begin();
    let ok = false;
    try {
      const before = { timestamp: oldest.timestamp, id: oldest.id };
      const r = await socket.request('history', { peerId, before, limit: HISTORY_PAGE });
      if (generation !== c.generation || this.deps.destroyed()) return;
      c.prepend(r.messages, r.hasMore);
      this.deps.reactions(
        c.chatId,
        r.messages.map((m) => m.id),
        r.reactions ?? [],
      );
      ok = true;
      for (const m of r.messages) this.deps.seen(m);
    } catch (e) {
      c.error = errorText(e);
    } finally {
      c.loadingOlder = false;
      replay.end(start, (u) => ok && isMessageOf(c.chatId)(u), this.deps.apply);
      c.touch();
      this.deps.changed();
    }
  }
}
