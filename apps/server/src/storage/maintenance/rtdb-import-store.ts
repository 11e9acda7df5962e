/**
 * The writes of `npm run admin -- import-rtdb` (cli/import-rtdb.ts): each imported record
 * goes in with its row in import_ids (migration 010), in one transaction, so a second run
 * finds it and skips it, and a record is either all there or not at all. Messages are rows
 * from before end-to-end encryption (`sealed` 0, the text in the clear, docs/e2ee.md):
 * clients show them under the "sent before end-to-end encryption" divider and each sender's
 * browser re-encrypts its own (legacy-migrate.ts); purge-plaintext removes the rest.
 */
import type { Insertable, Kysely, Transaction } from 'kysely';
import { E2EE_SINCE_KEY, HELP_LINK_KEY } from '../accounts/admin-store.ts';
import { appendLog, type LoggedUpdate, summaryOf } from '../messages/chat-rows.ts';
import type { Database, MessagesTable, UserChatsTable, UsersTable } from '../schema.ts';

/** `gone`: an account deleted in the original, which its chats still name (an id with no account). */
export type ImportKind =
  | 'user'
  | 'gone'
  | 'chat'
  | 'message'
  | 'broadcast'
  | 'request'
  | 'contact'
  | 'privacy'
  | 'helpLink';

export type MessageRow = Insertable<MessagesTable> & { sealed: 0; rev: 0 };
export type SummaryRow = Insertable<UserChatsTable>;

export interface ChatImport {
  sourceId: string;
  chatId: string;
  /** In the chat's order; each with the original's message id. */
  messages: { sourceId: string; row: MessageRow }[];
  /** One per participant with an account (none for one deleted in the original). */
  summaries: SummaryRow[];
}

/** Rows per insert: 13 columns × 400 stays under SQLite's and PostgreSQL's parameter limits. */
const BATCH = 400;

/**
 * Chats draw the "sent before end-to-end encryption" divider at `e2ee_since` (migration 008:
 * the newest message in the clear), which a deployment that never had such messages lacks:
 * imported messages move it on to the newest of them.
 */
async function raiseE2eeSince(tx: Transaction<Database>, newest: number): Promise<void> {
  const current = await tx.selectFrom('settings').select('value').where('key', '=', E2EE_SINCE_KEY).executeTakeFirst();
  if (!current)
    await tx
      .insertInto('settings')
      .values({ key: E2EE_SINCE_KEY, value: String(newest) })
      .execute();
  else if (Number(current.value) < newest)
    await tx
      .updateTable('settings')
      .set({ value: String(newest) })
      .where('key', '=', E2EE_SINCE_KEY)
      .execute();
}

export class RtdbImportStore {
  readonly db: Kysely<Database>;
  /** Tests only: runs inside a chat's transaction after its messages are written (a throw rolls it back). */
  faultAfterMessages: ((sourceChatId: string) => void) | null = null;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  /** The id a record was imported as, or null. */
  async mapped(kind: ImportKind, sourceId: string): Promise<string | null> {
    const r = await this.db
      .selectFrom('import_ids')
      .select('new_id')
      .where('kind', '=', kind)
      .where('source_id', '=', sourceId)
      .executeTakeFirst();
    return r?.new_id ?? null;
  }

  /**
   * Runs `write` and records the import of `sourceId` as `newId`, in one transaction, unless
   * it was imported before (then false, nothing written).
   */
  async once(
    kind: ImportKind,
    sourceId: string,
    newId: string,
    now: number,
    write: (tx: Transaction<Database>) => Promise<void>,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const r = await tx
        .insertInto('import_ids')
        .values({ kind, source_id: sourceId, new_id: newId, created_at: now })
        .onConflict((oc) => oc.columns(['kind', 'source_id']).doNothing())
        .executeTakeFirst();
      if (Number(r.numInsertedOrUpdatedRows ?? 0) !== 1) return false;
      await write(tx);
      return true;
    });
  }

  async userExists(id: string): Promise<boolean> {
    return !!(await this.db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst());
  }

  async hasPin(id: string): Promise<boolean> {
    const r = await this.db.selectFrom('users').select('pin_hash').where('id', '=', id).executeTakeFirst();
    return !!r?.pin_hash;
  }

  /** Which of the handle and the address a Parley account already has (case-insensitive). */
  async taken(username: string, email: string): Promise<'username' | 'email' | null> {
    const r = await this.db
      .selectFrom('users')
      .select(['username_lower', 'email_lower'])
      .where((eb) =>
        eb.or([eb('username_lower', '=', username.toLowerCase()), eb('email_lower', '=', email.toLowerCase())]),
      )
      .executeTakeFirst();
    if (!r) return null;
    return r.username_lower === username.toLowerCase() ? 'username' : 'email';
  }

  /** A new account with its privacy settings at their defaults; false if imported before. */
  createUser(sourceId: string, row: Insertable<UsersTable> & { id: string }, now: number): Promise<boolean> {
    return this.once('user', sourceId, row.id, now, async (tx) => {
      await tx.insertInto('users').values(row).execute();
      await tx
        .insertInto('user_settings')
        .values({ user_id: row.id, read_receipts: 1, last_seen: 1, require_request: 0 })
        .execute();
    });
  }

  /** Which of a chat's messages, by the original's ids, were imported before. */
  async importedMessages(chatSourceId: string, sourceIds: readonly string[]): Promise<Set<string>> {
    const known = new Set<string>();
    for (let i = 0; i < sourceIds.length; i += BATCH) {
      const rows = await this.db
        .selectFrom('import_ids')
        .select('source_id')
        .where('kind', '=', 'message')
        .where(
          'source_id',
          'in',
          sourceIds.slice(i, i + BATCH).map((id) => `${chatSourceId}/${id}`),
        )
        .execute();
      for (const r of rows) known.add(r.source_id.slice(chatSourceId.length + 1));
    }
    return known;
  }

  /**
   * The id standing for an account deleted in the original (no account has it, so clients
   * show "Deleted account"): `candidate` the first time, the same id at every later run.
   */
  async goneAccount(sourceId: string, candidate: string, now: number): Promise<string> {
    await this.db
      .insertInto('import_ids')
      .values({ kind: 'gone', source_id: sourceId, new_id: candidate, created_at: now })
      .onConflict((oc) => oc.columns(['kind', 'source_id']).doNothing())
      .execute();
    return (await this.mapped('gone', sourceId)) ?? candidate;
  }

  /**
   * A whole chat (its messages, their ids, both summaries) in one transaction; false if it was
   * imported before. A summary Parley already has (the two used Parley since) stays: it is newer.
   */
  importChat(chat: ChatImport, now: number): Promise<boolean> {
    return this.once('chat', chat.sourceId, chat.chatId, now, async (tx) => {
      await this.insertMessages(tx, chat, now);
      for (const s of chat.summaries) {
        await tx
          .insertInto('user_chats')
          .values(s)
          .onConflict((oc) => oc.columns(['user_id', 'chat_id']).doNothing())
          .execute();
      }
      await raiseE2eeSince(tx, chat.messages.at(-1)?.row.timestamp ?? 0);
    });
  }

  /**
   * Messages of a chat imported before that a newer export brings (all of them new: see
   * importedMessages), in one transaction. A summary whose newest message is older than the
   * newest of these moves on to it, its unread count grown by those its user received since
   * and had not read in the original;
   * a participant with no summary (removed the chat) gets one back. Each summary that changed
   * is logged, so the participant's clients see the chat move when they next connect.
   */
  importNewer(chat: ChatImport, now: number): Promise<LoggedUpdate[]> {
    return this.db.transaction().execute(async (tx) => {
      await this.insertMessages(tx, chat, now);
      const head = chat.messages.at(-1)?.row;
      if (!head) return [];
      const moved: string[] = [];
      for (const s of chat.summaries) {
        const row = await tx
          .selectFrom('user_chats')
          .select(['timestamp', 'last_id', 'unread_count'])
          .where('user_id', '=', s.user_id)
          .where('chat_id', '=', chat.chatId)
          .executeTakeFirst();
        if (!row) {
          await tx.insertInto('user_chats').values(s).execute();
          moved.push(s.user_id);
          continue;
        }
        const since = Number(row.timestamp);
        if (since > head.timestamp || (since === head.timestamp && (row.last_id ?? '') >= head.id)) continue;
        const received = chat.messages.filter(
          (m) => m.row.recipient_id === s.user_id && m.row.timestamp > since && !m.row.deleted && m.row.read_at == null,
        ).length;
        await tx
          .updateTable('user_chats')
          .set({
            last_message: s.last_message,
            last_id: s.last_id,
            last_sender: s.last_sender,
            last_rev: 0,
            last_sealed: 0,
            last_deleted: s.last_deleted,
            timestamp: head.timestamp,
            unread_count: row.unread_count + received,
          })
          .where('user_id', '=', s.user_id)
          .where('chat_id', '=', chat.chatId)
          .execute();
        moved.push(s.user_id);
      }
      await raiseE2eeSince(tx, head.timestamp);
      const entries = [];
      for (const userId of moved) {
        const summary = await summaryOf(tx, userId, chat.chatId);
        if (summary) entries.push({ userId, update: { kind: 'chat' as const, chat: summary } });
      }
      return appendLog(tx, entries, now);
    });
  }

  /** A chat's messages with their original ids, in batches. */
  private async insertMessages(tx: Transaction<Database>, chat: ChatImport, now: number): Promise<void> {
    for (let i = 0; i < chat.messages.length; i += BATCH) {
      const part = chat.messages.slice(i, i + BATCH);
      await tx
        .insertInto('messages')
        .values(part.map((m) => m.row))
        .execute();
      await tx
        .insertInto('import_ids')
        .values(
          part.map((m) => ({
            kind: 'message',
            source_id: `${chat.sourceId}/${m.sourceId}`,
            new_id: m.row.id,
            created_at: now,
          })),
        )
        .execute();
    }
    this.faultAfterMessages?.(chat.sourceId);
  }

  /** contacts/{a}/{b}: both ways, as Parley keeps them. */
  addContact(sourceId: string, a: string, b: string, now: number): Promise<boolean> {
    return this.once('contact', sourceId, `${a}_${b}`, now, async (tx) => {
      for (const [x, y] of [
        [a, b],
        [b, a],
      ] as const) {
        await tx
          .insertInto('contacts')
          .values({ user_id: x, other_id: y, created_at: now })
          .onConflict((oc) => oc.columns(['user_id', 'other_id']).doNothing())
          .execute();
      }
    });
  }

  addBroadcast(sourceId: string, row: Insertable<Database['notifications']> & { id: string }, now: number) {
    return this.once('broadcast', sourceId, row.id, now, async (tx) => {
      await tx.insertInto('notifications').values(row).execute();
    });
  }

  addRequest(sourceId: string, row: Insertable<Database['user_notifications']> & { id: string }, now: number) {
    return this.once('request', sourceId, row.id, now, async (tx) => {
      await tx.insertInto('user_notifications').values(row).execute();
    });
  }

  setPrivacy(
    sourceId: string,
    userId: string,
    s: { read_receipts: 0 | 1; last_seen: 0 | 1; require_request: 0 | 1 },
    now: number,
  ): Promise<boolean> {
    return this.once('privacy', sourceId, userId, now, async (tx) => {
      await tx.updateTable('user_settings').set(s).where('user_id', '=', userId).execute();
    });
  }

  /** The help link, unless Parley has one already (then its value, kept). */
  async setHelpLink(link: string, now: number): Promise<{ set: boolean; kept: string | null }> {
    const current = await this.db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', HELP_LINK_KEY)
      .executeTakeFirst();
    if (current && current.value !== link) return { set: false, kept: current.value };
    const set = await this.once('helpLink', HELP_LINK_KEY, link, now, async (tx) => {
      if (!current) await tx.insertInto('settings').values({ key: HELP_LINK_KEY, value: link }).execute();
    });
    return { set, kept: null };
  }
}
