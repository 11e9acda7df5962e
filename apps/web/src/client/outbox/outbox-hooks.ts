/**
 * What the outbox (outbox.ts) asks of the ChatClient: sealing, uploading, and being told
 * what became of each message.
 */
import type { MessageContent } from '@app/e2ee';
import type { Access, ChatKeyEnvelopeWire, ChatMessage } from '@app/protocol';

export interface OutboxHooks {
  /** The waiting messages to this peer changed. */
  changed(peerId: string): void;
  acknowledged(message: ChatMessage): void;
  /** The peer takes messages from contacts only: this one went to them as a contact request. */
  requested(peerId: string, access: Access): void;
  /** A message failed (refused for good, or too many failed attempts): why, for the user. */
  failed(text: string): void;
  /** Seals a message for the server (end-to-end); `accepted` once the server stored it. */
  seal(to: string, msgId: string, content: MessageContent): Promise<SealedSend>;
  /** The server refused the chat's key (out of date, or another won): fetch keys anew. */
  keysMoved(to: string): void;
  /** Uploads a sealed file (attachments/upload.ts): its id; rejects with an UploadError. */
  upload(
    blob: Blob,
    o: { url?: string; onUrl(url: string): void; onProgress(sent: number, total: number): void; signal: AbortSignal },
  ): Promise<string>;
  /** Drops an upload the user cancelled (best effort: one left over is collected a day later). */
  dropUpload(url: string): void;
}

export interface SealedSend {
  ct: string;
  chatKey?: ChatKeyEnvelopeWire;
  accepted(): void;
}
