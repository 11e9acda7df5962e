/**
 * The conversations a ChatClient holds: the pages of messages loaded for each peer a
 * screen shows, loaded newest first and older on demand (or, after a jump far back, around
 * a message and both ways from it), and reloaded after a reconnect that could not resume.
 */
import {
  type Access,
  type ChatMessage,
  chatIdOf,
  HISTORY_PAGE,
  type Reaction,
  type ResultData,
  type Update,
} from '@app/protocol';
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

type Cursor = { timestamp: number; id: string };

/** What a screen asks of a conversation it shows. */
export type ConversationPaging = Pick<Conversations, 'loadOlder' | 'loadNewer' | 'loadAround' | 'showNewest'>;

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
    if (this.deps.socket.status !== 'online') return; // loaded on welcome
    const generation = ++c.generation;
    if (c.status !== 'ready') c.status = 'loading';
    c.touch();
    this.deps.changed();
    try {
      await this.page(c, {}, (r) => {
        if (generation !== c.generation) return false;
        this.deps.users.remember(r.peer, c.peerId);
        this.deps.setAccess(c.peerId, r.access);
        c.locked = false;
        c.replace(r.messages, r.hasMore);
        return true;
      });
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
      c.touch();
      this.deps.changed();
    }
  }

  /** Loads the page before the oldest loaded message. */
  loadOlder(peerId: string): Promise<void> {
    return this.loadNext(peerId, 'older');
  }

  /** Loads the page after the newest loaded message, in a window away from the newest. */
  loadNewer(peerId: string): Promise<void> {
    return this.loadNext(peerId, 'newer');
  }

  /** Goes back to the newest messages from a window far back (loads them in its place). */
  showNewest(peerId: string): void {
    const c = this.map.get(peerId);
    if (c?.status === 'ready' && c.hasNewer) void this.loadNewest(c);
  }

  /**
   * Loads the page around a message not loaded (a jump far back), joined to what is loaded
   * when they meet. Resolves 'found' once it is loaded, 'missing' when the chat has no such
   * message; rejects when the page could not be loaded (offline, or the list reloaded meanwhile).
   */
  async loadAround(peerId: string, msgId: string): Promise<'found' | 'missing'> {
    const c = this.map.get(peerId);
    if (!c) throw new Error('The conversation is not open');
    if (c.has(msgId)) return 'found';
    const generation = c.generation;
    c.loadingOlder = true;
    c.touch();
    this.deps.changed();
    try {
      const ok = await this.page(c, { around: msgId }, (r) => {
        if (generation !== c.generation) return false;
        // Pages asked for before are of another list now (or overlap this one): dropped.
        c.generation += 1;
        c.window(r.messages, r.hasMore, r.hasNewer);
        return true;
      });
      if (!ok) throw new Error('Could not load the message');
      return c.has(msgId) ? 'found' : 'missing';
    } catch (e) {
      if (e instanceof RequestError && e.code === 'not_found') return 'missing';
      throw e;
    } finally {
      c.loadingOlder = false;
      c.touch();
      this.deps.changed();
    }
  }

  /** The next page up or down from what is loaded. */
  private async loadNext(peerId: string, side: 'older' | 'newer'): Promise<void> {
    const c = this.map.get(peerId);
    const older = side === 'older';
    const edge = older ? c?.oldest() : c?.newest();
    if (!c || !edge || c.status !== 'ready' || c.loadingOlder || c.loadingNewer) return;
    if (!(older ? c.hasMore : c.hasNewer)) return;
    const generation = c.generation;
    const flag = older ? 'loadingOlder' : 'loadingNewer';
    c[flag] = true;
    c.touch();
    this.deps.changed();
    try {
      const cursor = { timestamp: edge.timestamp, id: edge.id };
      await this.page(c, older ? { before: cursor } : { after: cursor }, (r) => {
        if (generation !== c.generation) return false;
        if (older) c.prepend(r.messages, r.hasMore);
        else c.append(r.messages, r.hasNewer);
        return true;
      });
    } catch (e) {
      c.error = errorText(e);
    } finally {
      c[flag] = false;
      c.touch();
      this.deps.changed();
    }
  }

  /**
   * One history request for a loaded conversation: `take` puts the page in (false: it came
   * for a list since replaced); its messages are seen, with their reactions, and the updates
   * that came meanwhile are applied after it. Returns whether the page was taken.
   */
  private async page(
    c: ConversationState,
    where: { before: Cursor } | { after: Cursor } | { around: string } | Record<string, never>,
    take: (r: ResultData['history']) => boolean,
  ): Promise<boolean> {
    const { socket, replay } = this.deps;
    if (socket.status !== 'online') return false;
    const start = replay.begin();
    let ok = false;
    try {
      const r = await socket.request('history', { peerId: c.peerId, limit: HISTORY_PAGE, ...where });
      if (this.deps.destroyed() || !take(r)) return false;
      ok = true;
      this.deps.reactions(
        c.chatId,
        r.messages.map((m) => m.id),
        r.reactions ?? [],
      );
      for (const m of r.messages) this.deps.seen(m);
      return true;
    } finally {
      replay.end(start, (u) => ok && isMessageOf(c.chatId)(u), this.deps.apply);
    }
  }
}
