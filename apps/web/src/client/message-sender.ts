/**
 * The user's own messages going out, for the ChatClient: new ones queued in the outbox
 * (shown at once, sealed and sent when online; a contact request or a failure told as a
 * notice), edits and deletions sealed and sent at once.
 */
import type { MessageContent } from '@app/e2ee';
import { type ChatMessage, chatIdOf, peerOf } from '@app/protocol';
import { logged } from '@/lib/log';
import { messageTextError } from '@/lib/message-text';
import type { UpdateApplier } from './apply-update';
import type { AttachmentFiles } from './attachments/attachment-files';
import type { AttachmentHttp } from './attachments/attachment-http';
import { type PreparedFile, preparedFromRef, refOf } from './attachments/prepared-file';
import { sealFile } from './attachments/seal-file';
import { uploadSealed } from './attachments/upload';
import type { Conversations } from './conversations/conversations';
import type { MessageCrypto } from './crypto/message-crypto';
import { sealedDelete, sealedEdit } from './crypto/sealed-edit';
import type { ChatKeys } from './keys/chat-keys';
import type { LocalSealing } from './keys/local-keys';
import type { ClientNotice } from './notices';
import type { HandOver } from './outbox/hand-over';
import { Outbox } from './outbox/outbox';
import type { OutboxStore } from './outbox/outbox-store';
import type { Reactions } from './reactions';
import { type ChatSocket, RequestError } from './socket/chat-socket';
import type { UserDirectory } from './user-directory';

/** The parts of the ChatClient that sending touches. */
export interface SenderParts {
  userId: string;
  socket: ChatSocket;
  keys: ChatKeys;
  crypto: MessageCrypto;
  reactions: Reactions;
  users: UserDirectory;
  updates: UpdateApplier;
  conversations: Conversations;
  /** Where files go, and the ones this tab has open. */
  attachments: { http: AttachmentHttp; files: AttachmentFiles };
  /** A message to `peerId` was queued: the user no longer types to them. */
  stopTyping(peerId: string): void;
  notice(notice: ClientNotice): void;
  changed(): void;
}

export class MessageSender {
  readonly outbox: Outbox;
  private readonly parts: SenderParts;
  /** Files sent from this tab, by their sealed Blob: shown from themselves once uploaded. */
  private readonly originals = new WeakMap<Blob, { file: Blob; digest: string }>();

  constructor(parts: SenderParts, store: OutboxStore | undefined, local: LocalSealing) {
    this.parts = parts;
    const { userId, keys, crypto, updates, conversations, users } = parts;
    this.outbox = new Outbox(
      userId,
      parts.socket,
      {
        seal: (to, msgId, content) => crypto.sealSend(userId, to, msgId, content),
        keysMoved: (to) => keys.invalidate(chatIdOf(userId, to), to),
        changed: (peerId) => {
          conversations.get(peerId)?.touch();
          parts.changed();
        },
        acknowledged: (m) => {
          updates.applyMessage(m);
          parts.changed();
        },
        requested: (peerId, access) => {
          updates.setAccess(peerId, access);
          parts.notice({ kind: 'request-sent', peerId, username: users.user(peerId)?.username ?? null });
          parts.changed();
        },
        failed: (reason) => parts.notice({ kind: 'message-not-sent', reason }),
        upload: async (blob, o) => {
          const id = await uploadSealed(blob, { http: parts.attachments.http, ...o });
          const original = this.originals.get(blob);
          if (original) parts.attachments.files.remember(id, original.digest, original.file);
          return id;
        },
        dropUpload: (url) => {
          const { base, headers } = parts.attachments.http;
          fetch(base + url, { method: 'DELETE', headers: { ...headers, 'tus-resumable': '1.0.0' } }).catch(
            logged('outbox', 'drop a cancelled upload'),
          );
        },
      },
      store,
      Math.random,
      local,
    );
  }

  /** Queues a message (see ChatClient.queueMessage): why not, or `stored` once it outlives a reload. */
  queue(peerId: string, content: MessageContent, handOver?: HandOver): { problem: string } | { stored: Promise<void> } {
    const problem = messageTextError(content.text);
    if (problem !== null) return { problem };
    this.parts.stopTyping(peerId);
    return { stored: this.outbox.add(peerId, content, handOver) };
  }

  /**
   * Queues a file with its caption (one message each, as WhatsApp sends them): sealed here
   * first, then uploaded and sent by the outbox. Why not, or `stored` once it outlives a reload.
   */
  async queueFile(
    peerId: string,
    f: PreparedFile,
    caption: string,
    maxBytes: number,
    forwarded = false,
  ): Promise<{ problem: string } | { stored: Promise<void> }> {
    const problem = caption.trim() ? messageTextError(caption) : null;
    if (problem !== null) return { problem };
    if (f.file.size > maxBytes) return { problem: `Files can be at most ${Math.floor(maxBytes / 1_000_000)} MB` };
    const sealed = await sealFile(f.file);
    this.originals.set(sealed.blob, { file: f.file, digest: sealed.digest });
    this.parts.stopTyping(peerId);
    const content = { text: caption.trim(), attachments: [refOf(f, sealed)], ...(forwarded ? { forwarded } : {}) };
    return { stored: this.outbox.add(peerId, content, undefined, sealed.blob) };
  }

  /**
   * Forwards `m` to each of `peerIds`, marked "Forwarded" inside the seal: its text, or its
   * file with its caption (opened here, then sealed anew for each chat and uploaded again, as
   * a new file: a blob is readable in its own chat only). A reply's reference stays behind.
   * Why one could not be queued, or null.
   */
  async forward(m: ChatMessage, peerIds: readonly string[], maxBytes: number): Promise<string | null> {
    const shown = this.parts.crypto.shown(m);
    if (shown?.kind !== 'text') return 'This message cannot be forwarded';
    const ref = shown.attachments?.[0];
    const file = ref ? preparedFromRef(ref, await this.parts.attachments.files.open(ref)) : null;
    let problem: string | null = null;
    for (const peerId of peerIds) {
      const queued = file
        ? await this.queueFile(peerId, file, shown.text, maxBytes, true)
        : this.queue(peerId, { text: shown.text, forwarded: true });
      if ('problem' in queued) problem ??= queued.problem;
    }
    return problem;
  }

  async edit(m: ChatMessage, text: string): Promise<void> {
    const problem = messageTextError(text);
    if (problem !== null) throw new Error(problem);
    const { socket, keys, crypto } = this.parts;
    this.parts.updates.applyMessage(await sealedEdit(socket, keys, crypto, m, text));
    this.parts.changed();
  }

  async delete(m: ChatMessage): Promise<void> {
    const { socket, keys, crypto } = this.parts;
    this.parts.updates.applyMessage(await sealedDelete(socket, keys, crypto, m));
    this.parts.changed();
  }

  /**
   * Reacts to a message with `emoji`, sealed under the chat's newest key; the same emoji
   * again (or null) takes the reaction back. A key that moved on is fetched again, once.
   */
  async react(m: ChatMessage, emoji: string | null): Promise<void> {
    const { socket, keys, reactions, userId } = this.parts;
    const takeBack = emoji === null || reactions.mine(m.chatId, m.id, userId) === emoji;
    const request = async () => ({
      chatId: m.chatId,
      msgId: m.id,
      ct: takeBack || emoji === null ? null : await reactions.seal(m.chatId, m.id, userId, emoji),
    });
    const r = await socket.request('react', await request()).catch(async (e: unknown) => {
      if (!(e instanceof RequestError && e.code === 'rekey_required')) throw e;
      keys.invalidate(m.chatId, peerOf(m.chatId, userId));
      return socket.request('react', await request());
    });
    reactions.apply(r.reaction);
    this.parts.changed();
  }
}
