/**
 * The attachments' rows (migration 015): who uploaded each, its sealed size, whether it is
 * complete, and the message it went out in. Who may read a blob is decided here, on every
 * request: its uploader, or someone of the chat of the message it is in, while that message
 * (by the uploader) is there and not deleted. The quota is taken and given back on the
 * user's own row, in the statement that creates or removes the upload.
 */
import { chatIdOf, peerOf } from '@app/protocol';
import type { Expression, ExpressionBuilder, Kysely, SqlBool } from 'kysely';
import { ChatError } from '../messages/chat-rows.ts';
import type { Database } from '../schema.ts';

/** An upload never sent in a message, or whose message is gone, is collected after this long. */
export const ATTACHMENT_UNSENT_MS = 24 * 60 * 60 * 1000;

export interface AttachmentRow {
  id: string;
  ownerId: string;
  size: number;
  complete: boolean;
}

/** Bound to a message that is not stored (its send was refused after the upload was bound). */
function unstored(eb: ExpressionBuilder<Database, 'attachments'>): Expression<SqlBool> {
  return eb.not(
    eb.exists(
      eb
        .selectFrom('messages as m')
        .select('m.id')
        .whereRef('m.chat_id', '=', 'attachments.chat_id')
        .whereRef('m.id', '=', 'attachments.msg_id'),
    ),
  );
}

export class AttachmentStore {
  readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  /**
   * A new upload of `size` sealed bytes, if the owner's quota has room: the bytes are taken
   * from it in the same transaction. False: over the quota (nothing changed).
   */
  async create(ownerId: string, id: string, size: number, quota: number, now: number): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const taken = await tx
        .updateTable('users')
        .set((eb) => ({ attachment_bytes: eb('attachment_bytes', '+', size) }))
        .where('id', '=', ownerId)
        .where((eb) => eb(eb('attachment_bytes', '+', size), '<=', quota))
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) !== 1) return false;
      await tx
        .insertInto('attachments')
        .values({ id, owner_id: ownerId, size, created_at: now, complete: 0, chat_id: null, msg_id: null })
        .execute();
      return true;
    });
  }

  async get(id: string): Promise<AttachmentRow | null> {
    const r = await this.db
      .selectFrom('attachments')
      .select(['id', 'owner_id', 'size', 'complete'])
      .where('id', '=', id)
      .executeTakeFirst();
    return r ? { id: r.id, ownerId: r.owner_id, size: Number(r.size), complete: r.complete === 1 } : null;
  }

  async markComplete(id: string): Promise<void> {
    await this.db.updateTable('attachments').set({ complete: 1 }).where('id', '=', id).execute();
  }

  /**
   * The uploads `ownerId` names in a message to `peerId`: each theirs, complete, and not in
   * another message (the same message again is a retried send; one bound to a message that
   * was refused and never stored is free again). Any other: not_found, and none is bound.
   */
  async bind(ownerId: string, peerId: string, msgId: string, ids: readonly string[]): Promise<void> {
    const chatId = chatIdOf(ownerId, peerId);
    await this.db.transaction().execute(async (tx) => {
      const bound = await tx
        .updateTable('attachments')
        // The day a leftover is kept starts again: the message is stored just after this,
        // in a transaction of its own, and a sweep in between must not take the upload.
        .set({ chat_id: chatId, msg_id: msgId, created_at: Date.now() })
        .where('id', 'in', ids)
        .where('owner_id', '=', ownerId)
        .where('complete', '=', 1)
        .where((eb) =>
          eb.or([
            eb('msg_id', 'is', null),
            eb.and([eb('chat_id', '=', chatId), eb('msg_id', '=', msgId)]),
            unstored(eb),
          ]),
        )
        .executeTakeFirst();
      if (Number(bound.numUpdatedRows) !== new Set(ids).size) {
        throw new ChatError('not_found', 'Attachment not found. Send it again.');
      }
    });
  }

  /** Whether `userId` may read the blob now: its uploader, or the peer of the message it is in. */
  async readable(id: string, userId: string): Promise<AttachmentRow | null> {
    const r = await this.db
      .selectFrom('attachments as a')
      .leftJoin('messages as m', (j) => j.onRef('m.chat_id', '=', 'a.chat_id').onRef('m.id', '=', 'a.msg_id'))
      .select(['a.id', 'a.owner_id', 'a.size', 'a.complete', 'a.chat_id', 'm.sender_id', 'm.deleted'])
      .where('a.id', '=', id)
      .executeTakeFirst();
    if (r?.complete !== 1) return null;
    const row = { id: r.id, ownerId: r.owner_id, size: Number(r.size), complete: true };
    if (r.owner_id === userId) return row;
    const inMessage = r.chat_id !== null && r.sender_id === r.owner_id && r.deleted === 0;
    return inMessage && peerOf(r.chat_id as string, r.owner_id) === userId ? row : null;
  }

  /** Every complete upload (what a backup carries). */
  async completeBlobs(): Promise<{ id: string; size: number }[]> {
    const rows = await this.db.selectFrom('attachments').select(['id', 'size']).where('complete', '=', 1).execute();
    return rows.map((r) => ({ id: r.id, size: Number(r.size) }));
  }

  /** The uploads of a message (deleted by its sender): removed, their bytes given back. Their ids. */
  removeForMessage(chatId: string, msgId: string): Promise<string[]> {
    return this.remove((eb) => eb.and([eb('chat_id', '=', chatId), eb('msg_id', '=', msgId)]));
  }

  /** One's own upload not in a stored message (a cancelled upload, a refused message discarded). */
  removeUnsent(ownerId: string, id: string): Promise<string[]> {
    return this.remove((eb) =>
      eb.and([eb('id', '=', id), eb('owner_id', '=', ownerId), eb.or([eb('msg_id', 'is', null), unstored(eb)])]),
    );
  }

  /** Every upload of a user (their account is deleted). */
  removeOwnedBy(ownerId: string): Promise<string[]> {
    return this.remove((eb) => eb('owner_id', '=', ownerId));
  }

  /**
   * What is left over, a day on: uploads never sent, or whose message is gone or deleted, or
   * whose uploader is gone. Removed; their ids (the blobs to delete).
   */
  collect(now: number, limit = 500): Promise<string[]> {
    const before = now - ATTACHMENT_UNSENT_MS;
    return this.remove((eb) =>
      eb.and([
        eb(
          'id',
          'in',
          eb
            .selectFrom('attachments as a')
            .leftJoin('messages as m', (j) => j.onRef('m.chat_id', '=', 'a.chat_id').onRef('m.id', '=', 'a.msg_id'))
            .leftJoin('users as u', 'u.id', 'a.owner_id')
            .select('a.id')
            .where('a.created_at', '<', before)
            .where((w) => w.or([w('m.id', 'is', null), w('m.deleted', '=', 1), w('u.id', 'is', null)]))
            .limit(limit),
        ),
        // Again on the row itself: binding restarts the day (see bind), so an old upload sent
        // just now stays, its message stored or not yet. PostgreSQL checks this anew on a row
        // changed meanwhile; the list above it does not.
        eb('created_at', '<', before),
      ]),
    );
  }

  /** Deletes the rows `filter` picks and gives their bytes back to their owners, in one transaction. */
  private remove(filter: (eb: ExpressionBuilder<Database, 'attachments'>) => Expression<SqlBool>): Promise<string[]> {
    return this.db.transaction().execute(async (tx) => {
      const rows = await tx.deleteFrom('attachments').where(filter).returning(['id', 'owner_id', 'size']).execute();
      const byOwner = new Map<string, number>();
      for (const r of rows) byOwner.set(r.owner_id, (byOwner.get(r.owner_id) ?? 0) + Number(r.size));
      for (const [owner, bytes] of byOwner) {
        await tx
          .updateTable('users')
          .set((eb) => ({ attachment_bytes: eb('attachment_bytes', '-', bytes) }))
          .where('id', '=', owner)
          .execute();
      }
      return rows.map((r) => r.id);
    });
  }
}
