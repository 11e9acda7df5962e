/**
 * import-rtdb's two passes over an export (cli/import-rtdb.ts runs them):
 * 1. accounts: `users` are created as they come (with their PINs hashed); the small
 *    per-chat flags of `userChats` and `archives` and the `usernames` index are kept;
 * 2. the rest: each chat of `messages` with all its messages and both summaries in one
 *    transaction, then contacts, broadcasts, requests, privacy settings and the help link.
 * Two passes because an export's keys come in any order (the original's exports sort them:
 * `messages` before `users`), and a chat needs both its accounts. Everything goes through
 * import_ids, so a second run skips what the first made, and a newer export's run brings
 * only what is new (a chat imported before gets its newer messages). A chat with an account
 * the original deleted (no `users` record) comes with its peer as a deleted account. Nothing
 * of a record the import cannot use is guessed: it is skipped, with the reason, in the report.
 */
import { hashSecret } from '../auth/passwords.ts';
import { newId } from '../storage/ids.ts';
import type { RtdbImportStore, SummaryRow } from '../storage/maintenance/rtdb-import-store.ts';
import {
  type Entry,
  isObject,
  pinOf,
  readEntries,
  type SourceSummary,
  sourceSummarySchema,
  sourceUserSchema,
  TOP_KEYS,
  why,
} from './rtdb-export.ts';
import {
  type ImportCounts,
  importBroadcast,
  importContacts,
  importPrivacy,
  importRequests,
  importSetting,
  noCounts,
  type RecordContext,
} from './rtdb-records.ts';
import { accountRow, messageRows, parseMessages, summaryRow } from './rtdb-rows.ts';

export interface NewAccount {
  id: string;
  email: string;
  name: string;
  username: string;
  blocked: boolean;
}

export interface ImportHooks {
  progress(line: string): void;
  /** An account was made (the set-password e-mail goes out here). */
  created(account: NewAccount): Promise<void>;
}

/** Progress every this many messages (and at each pass). */
const PROGRESS_EVERY = 10_000;

export class RtdbImporter {
  readonly counts: ImportCounts = noCounts();
  /** Every record not imported, as "path: reason". */
  readonly skipped: string[] = [];
  /** Chats whose transaction failed (rolled back): "path: error". */
  readonly failed: string[] = [];
  private readonly users = new Map<string, string>();
  /** Every user id with a record under `users`, imported or not. */
  private readonly records = new Set<string>();
  /** Accounts the original deleted (no record), by user id: the id their chats name instead. */
  private readonly gone = new Map<string, string>();
  private readonly usernameOf = new Map<string, string>();
  private readonly usernames = new Map<string, string>();
  private readonly summaries = new Map<string, SourceSummary>();
  private readonly archives = new Set<string>();
  private readonly chatsSeen = new Set<string>();
  private readonly unknownTops = new Set<string>();
  private nextProgress = PROGRESS_EVERY;

  private readonly store: RtdbImportStore;
  private readonly hooks: ImportHooks;
  private readonly now: number;

  constructor(store: RtdbImportStore, hooks: ImportHooks, now = Date.now()) {
    this.store = store;
    this.hooks = hooks;
    this.now = now;
  }

  private get context(): RecordContext {
    return {
      store: this.store,
      users: this.users,
      usernameOf: this.usernameOf,
      counts: this.counts,
      now: this.now,
      skip: (p, r) => this.skip(p, r),
    };
  }

  private skip(path: string, reason: string) {
    this.skipped.push(`${path}: ${reason}`);
  }

  async run(file: string): Promise<void> {
    this.hooks.progress(`Pass 1 of 2 (accounts) over ${file}...`);
    for await (const e of readEntries(file)) await this.first(e);
    this.checkUsernames();
    this.hooks.progress(`Pass 1 done: ${this.users.size.toLocaleString('en-US')} accounts.`);
    this.hooks.progress('Pass 2 of 2 (chats, contacts, notifications, settings)...');
    for await (const e of readEntries(file)) await this.second(e);
    this.leftovers();
    this.hooks.progress(
      `Pass 2 done: ${this.counts.chats.toLocaleString('en-US')} chats, ${this.counts.messages.toLocaleString('en-US')} messages.`,
    );
  }

  private async first({ top, key, value }: Entry) {
    if (top === 'users') await this.user(key, value);
    else if (top === 'usernames') this.usernames.set(key, String(value));
    else if (top === 'userChats' || top === 'archives') {
      if (!isObject(value)) return this.skip(`${top}/${key}`, 'not an object');
      for (const [id, v] of Object.entries(value)) {
        if (top === 'archives') this.archives.add(`${key}/${id}`);
        else {
          const s = sourceSummarySchema.safeParse(v);
          if (s.success) this.summaries.set(`${key}/${id}`, s.data);
          else this.skip(`userChats/${key}/${id}`, why(s.error));
        }
      }
    }
  }

  private async user(uid: string, value: unknown) {
    const path = `users/${uid}`;
    this.records.add(uid);
    const u = sourceUserSchema.safeParse(value);
    if (u.success) this.usernameOf.set(uid, u.data.username);
    const before = await this.store.mapped('user', uid);
    if (before) {
      if (await this.store.userExists(before)) {
        this.users.set(uid, before);
        this.counts.usersBefore++;
      } else this.skip(path, 'imported before, and the account was deleted since: not made again');
      return;
    }
    if (!u.success) return this.skip(path, why(u.error));
    const { username, email } = u.data;
    const taken = await this.store.taken(username, email);
    if (taken)
      return this.skip(
        path,
        `a Parley account already has this ${taken === 'username' ? 'username' : 'e-mail address'}`,
      );
    const pinHash = await this.pinHash(`${path}/pin`, u.data.pin);
    const id = newId();
    try {
      await this.store.createUser(uid, accountRow(id, u.data, pinHash, this.now), this.now);
    } catch (e) {
      return this.skip(path, `not created: ${e instanceof Error ? e.message : String(e)}`);
    }
    this.users.set(uid, id);
    this.counts.users++;
    await this.hooks.created({ id, email, name: u.data.name?.trim() || username, username, blocked: !!u.data.blocked });
    if (this.counts.users % 1000 === 0)
      this.hooks.progress(`  ${this.counts.users.toLocaleString('en-US')} accounts...`);
  }

  /** The PIN as the app stores it (argon2id), or null: none, or not a usable code (reported). */
  private async pinHash(path: string, pin: unknown): Promise<string | null> {
    if (pin === undefined || pin === null || pin === '') return null;
    const p = pinOf(pin);
    if (p) return 'hash' in p ? p.hash : hashSecret(p.plain);
    this.skip(path, 'not a 6-digit code: not imported, and chats it locked are imported unlocked');
    return null;
  }

  /** usernames/{name} should name its owner, whose record has that username. */
  private checkUsernames() {
    for (const [name, owner] of this.usernames) {
      if (this.usernameOf.get(owner)?.toLowerCase() !== name.toLowerCase()) {
        this.skip(`usernames/${name}`, `points to ${owner}, whose user record has another username or none: ignored`);
      }
    }
    this.usernames.clear();
  }

  private async second(e: Entry) {
    const { top, key, value } = e;
    if (top === 'messages') return this.chat(key, value);
    if (top === 'contacts') return importContacts(this.context, key, value);
    if (top === 'notifications') return importBroadcast(this.context, key, value);
    if (top === 'userNotifications') return importRequests(this.context, key, value);
    if (top === 'userSettings') return importPrivacy(this.context, key, value);
    if (top === 'settings') return importSetting(this.context, key, value);
    if (top === 'typing') {
      this.counts.typing++;
      return;
    }
    if (!(TOP_KEYS as readonly string[]).includes(top) && !this.unknownTops.has(top)) {
      this.unknownTops.add(top);
      this.skip(top, 'not part of the original app: ignored');
    }
  }

  private async chat(chatId: string, value: unknown) {
    const path = `messages/${chatId}`;
    this.chatsSeen.add(chatId);
    const people = chatId.split('_');
    if (people.length !== 2 || !people[0] || !people[1] || people[0] === people[1])
      return this.skip(path, 'not two different user ids joined by "_"');
    const pair = people as [string, string];
    const [a, b] = pair;
    if (!isObject(value)) return this.skip(path, 'not an object');
    let parsed = parseMessages(path, value, pair, (p, r) => this.skip(p, r));
    const before = await this.store.mapped('chat', chatId);
    if (before) {
      const known = await this.store.importedMessages(
        chatId,
        parsed.map((p) => p.sourceId),
      );
      parsed = parsed.filter((p) => !known.has(p.sourceId));
      if (!parsed.length) {
        this.counts.chatsBefore++;
        return;
      }
    } else if (!parsed.length) return this.skip(path, 'no message that can be imported');
    const ids = await this.participants(path, pair);
    if (!ids) return;
    const newOf = (p: string) => ids.get(p) as string;
    const newChat = [newOf(a), newOf(b)].sort().join('_');
    // Its accounts are no longer the ones it was imported with (one deleted since): not into another chat.
    if (before && before !== newChat)
      return this.skip(path, 'its accounts changed since it was imported: not imported again');
    const messages = messageRows(parsed, newChat, pair, newOf);
    const head = (messages.at(-1) as (typeof messages)[number]).row;
    const summaries: SummaryRow[] = [];
    for (const [me, peer] of [pair, [b, a] as const]) {
      if (this.users.has(me))
        summaries.push(summaryRow(head, newOf(me), newOf(peer), await this.flagsOf(me, peer, chatId)));
    }
    const chat = { sourceId: chatId, chatId: newChat, messages, summaries };
    try {
      if (before) {
        await this.store.importNewer(chat, this.now);
        this.counts.chatsBefore++;
        this.counts.chatsGrown++;
        this.counts.newerMessages += messages.length;
      } else if (await this.store.importChat(chat, this.now)) {
        this.counts.chats++;
        this.counts.messages += messages.length;
        if (summaries.length === 1) this.counts.chatsWithDeleted++;
      } else this.counts.chatsBefore++;
    } catch (e) {
      this.counts.chatsFailed++;
      this.failed.push(`${path}: ${e instanceof Error ? e.message : String(e)}`);
    }
    const done = this.counts.messages + this.counts.newerMessages;
    if (done >= this.nextProgress) {
      this.hooks.progress(`  ${done.toLocaleString('en-US')} messages, ${this.counts.chats} chats...`);
      while (this.nextProgress <= done) this.nextProgress += PROGRESS_EVERY;
    }
  }

  /**
   * The accounts of a chat's two users, or null (skipped, with the reason). A user with a
   * record that was not imported stops the chat; one with no record at all was deleted in the
   * original, and stands as a deleted account (unless an earlier run imported them).
   */
  private async participants(path: string, pair: readonly [string, string]): Promise<Map<string, string> | null> {
    const ids = new Map<string, string>();
    const deleted: string[] = [];
    for (const p of pair) {
      const id = this.users.get(p) ?? (await this.importedBefore(p));
      if (id) ids.set(p, id);
      else if (this.records.has(p)) {
        this.skip(path, `user ${p} was not imported (see users/${p})`);
        return null;
      } else deleted.push(p);
    }
    if (deleted.length === 2) {
      this.skip(path, 'both its users were deleted in the original app: no one to import it for');
      return null;
    }
    for (const p of deleted) {
      let id = this.gone.get(p);
      if (!id) {
        id = await this.store.goneAccount(p, newId(), this.now);
        this.gone.set(p, id);
      }
      ids.set(p, id);
    }
    return ids;
  }

  /** An account an earlier run imported, whose record this export no longer has. */
  private async importedBefore(uid: string): Promise<string | null> {
    if (this.records.has(uid) || this.gone.has(uid)) return null;
    const id = await this.store.mapped('user', uid);
    if (!id || !(await this.store.userExists(id))) return null;
    this.users.set(uid, id);
    return id;
  }

  /** A participant's flags from userChats and archives (a lock only with a PIN to open it). */
  private async flagsOf(me: string, peer: string, chatId: string) {
    const flags = this.summaries.get(`${me}/${chatId}`);
    this.summaries.delete(`${me}/${chatId}`);
    const archived = !!flags?.archived || this.archives.delete(`${me}/${peer}`);
    let locked = !!flags?.locked;
    if (locked && !(await this.store.hasPin(this.users.get(me) as string))) {
      this.skip(`userChats/${me}/${chatId}/locked`, 'the user has no usable PIN: imported unlocked');
      locked = false;
    }
    return { unreadCount: flags?.unreadCount ?? 0, archived, locked };
  }

  /** Flags of chats that had no messages in the export. */
  private leftovers() {
    for (const key of this.summaries.keys()) {
      const chatId = key.split('/')[1] ?? '';
      if (!this.chatsSeen.has(chatId)) this.skip(`userChats/${key}`, 'the export has no messages for this chat');
    }
    for (const key of this.archives) {
      const [uid = '', other = ''] = key.split('/');
      if (!this.chatsSeen.has([uid, other].sort().join('_')))
        this.skip(`archives/${key}`, 'the export has no messages for this chat');
    }
  }
}
