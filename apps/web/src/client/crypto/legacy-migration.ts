/**
 * One's own messages from before end-to-end encryption, re-encrypted in the background
 * (docs/e2ee.md): each loaded page hands its messages here; those this user sent
 * in the clear are sealed as revision 0 under the chat's current key and sent back with
 * `migrate`, a batch per frame (paced like every write), so the server stops holding
 * their text. A chat without a key yet waits for its next message (a key is only stored
 * with one); a refusal drops that batch until the next page load offers it again.
 */
import { type ChatMessage, MIGRATE_BATCH, peerOf } from '@app/protocol';
import { type ChatKeys, loadE2ee } from '../keys/chat-keys';
import type { ChatSocket } from '../socket/chat-socket';
import { clearAllowed } from './believable';

/** Stays well inside the server's frame limit with room for the frame's own fields. */
const MAX_BATCH_CHARS = 40_000;

export interface LegacyMigrationDeps {
  userId: string;
  socket: Pick<ChatSocket, 'request'>;
  keys: ChatKeys;
  /** A message is now stored sealed: `ct` replaces its legacy text (the same words). */
  migrated(m: ChatMessage, text: string): void;
}

export class LegacyMigration {
  private readonly d: LegacyMigrationDeps;
  /** By chat: the messages waiting, by id. */
  private readonly waiting = new Map<string, Map<string, ChatMessage>>();
  /** Offered once per page load: ids sent or being sent. */
  private readonly taken = new Set<string>();
  private running = false;

  constructor(deps: LegacyMigrationDeps) {
    this.d = deps;
  }

  /** A loaded message: queued when it is this user's, in the clear, and not deleted. */
  offer(m: ChatMessage): void {
    if (m.senderId !== this.d.userId || m.ct !== null || m.legacyText === null || m.deleted) return;
    if (this.taken.has(m.id)) return;
    this.taken.add(m.id);
    const chat = this.waiting.get(m.chatId) ?? new Map<string, ChatMessage>();
    chat.set(m.id, m);
    this.waiting.set(m.chatId, chat);
    if (!this.running) {
      this.running = true;
      // After the page that offered it has rendered.
      setTimeout(() => void this.run(), 0);
    }
  }

  /** Works through the waiting chats one at a time (messages offered meanwhile join the queue). */
  private async run(): Promise<void> {
    for (const [chatId, messages] of this.waiting) {
      this.waiting.delete(chatId);
      await this.migrateChat(chatId, [...messages.values()]).catch(() => {
        // Offered again at the next load of its page.
        for (const m of messages.values()) this.taken.delete(m.id);
      });
    }
    this.running = false;
  }

  private async migrateChat(chatId: string, offered: ChatMessage[]): Promise<void> {
    const { userId, keys, socket } = this.d;
    const peerId = peerOf(chatId, userId);
    // Only what this account can have sent in the clear, as its sealed keys say (not as the
    // server says, for a bundle that does not say yet): sealing a row the server made up would
    // make it a message of ours (believable.ts clearAllowed). Sealed marked as from before
    // encryption, so its recipient still sees it was once in the clear.
    const started = (await keys.me())?.started ?? null;
    if (!started) return;
    const messages: ChatMessage[] = [];
    for (const m of offered) if (await clearAllowed(started, m.timestamp)) messages.push(m);
    if (messages.length === 0) return;
    const sending = await keys.sendingKey(peerId);
    // No key stored for the chat (or one is due): the next message brings it; until then nothing to do.
    if (sending.chatKey) {
      for (const m of messages) this.taken.delete(m.id);
      return;
    }
    const e2ee = await loadE2ee();
    let batch: { m: ChatMessage; ct: string }[] = [];
    let chars = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      const items = batch.map(({ m, ct }) => ({ msgId: m.id, ct }));
      const done = batch;
      batch = [];
      chars = 0;
      const { migrated } = await socket.request('migrate', { chatId, items });
      // Only what the server took (a message deleted or sealed meanwhile stays as the server has it).
      const took = new Set(migrated);
      for (const { m, ct } of done) {
        if (took.has(m.id)) this.d.migrated({ ...m, ct, rev: 0, legacyText: null }, m.legacyText ?? '');
      }
    };
    for (const m of messages) {
      const place = { chatId, msgId: m.id, senderId: userId, recipientId: peerId };
      const ct = await e2ee.encryptClearBefore(
        sending.key,
        place,
        { epoch: sending.epoch, rev: 0 },
        m.legacyText ?? '',
      );
      if (batch.length === MIGRATE_BATCH || chars + ct.length > MAX_BATCH_CHARS) await flush();
      batch.push({ m, ct });
      chars += ct.length;
    }
    await flush();
  }
}
