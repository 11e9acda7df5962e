/**
 * import-rtdb's two passes over an export (cli/import-rtdb.ts runs them):
 * 1. accounts: `users` are created as they come (with their PINs hashed); the small
 *    per-chat flags of `userChats` and `archives` and the `usernames` index are kept;
 * 2. the rest: each chat of `messages` with all its messages and both summaries in one
 *    transaction, then contacts, broadcasts, requests, privacy settings and the help link.
 * Two passes because an export's keys come in any order (the original's exports sort them:
 * `messages` before `users`), and a chat needs both its accounts. Everything goes through
 * import_ids, so a second run skips what the first made. Nothing of a record the import
 * cannot use is guessed: it is skipped, with the reason, in the report.
 */
import { hashSecret } from '../auth/passwords.ts';
import { newId, newTimeOrderedId } from '../storage/ids.ts';
import type { RtdbImportStore, SummaryRow } from '../storage/maintenance/rtdb-import-store.ts';
import {
  type Entry,
  helpLinkSchema,
  isObject,
  pinOf,
  readEntries,
  type SourceSummary,
  sourceBroadcastSchema,
  sourcePrivacySchema,
  sourceRequestSchema,
  sourceSummarySchema,
  sourceUserSchema,
  TOP_KEYS,
  why,
} from './rtdb-export.ts';
import { accountRow, bit, messageRows, parseMessages, summaryRow } from './rtdb-rows.ts';

export interface ImportCounts {
  users: number;
  usersBefore: number;
  chats: number;
  chatsBefore: number;
  chatsFailed: number;
  messages: number;
  contacts: number;
  broadcasts: number;
  requests: number;
  privacy: number;
  helpLink: number;
  typing: number;
}

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
  readonly counts: ImportCounts = {
    users: 0,
    usersBefore: 0,
    chats: 0,
    chatsBefore: 0,
    chatsFailed: 0,
    messages: 0,
    contacts: 0,
    broadcasts: 0,
    requests: 0,
    privacy: 0,
    helpLink: 0,
    typing: 0,
  };
  /** Every record not imported, as "path: reason". */
  readonly skipped: string[] = [];
  /** Chats whose transaction failed (rolled back): "path: error". */
  readonly failed: string[] = [];
  private readonly users = new Map<string, string>();
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
    if (top === 'contacts') return this.contacts(key, value);
    if (top === 'notifications') return this.broadcast(key, value);
    if (top === 'userNotifications') return this.requests(key, value);
    if (top === 'userSettings') return this.privacy(key, value);
    if (top === 'settings') return this.setting(key, value);
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
    const [a, b] = people as [string, string];
    const missing = people.find((p) => !this.users.has(p));
    if (missing) return this.skip(path, `user ${missing} was not imported (see users/${missing})`);
    if (await this.store.mapped('chat', chatId)) {
      this.counts.chatsBefore++;
      return;
    }
    if (!isObject(value)) return this.skip(path, 'not an object');
    const pair = [a, b] as const;
    const parsed = parseMessages(path, value, pair, (p, r) => this.skip(p, r));
    if (!parsed.length) return this.skip(path, 'no message that can be imported');
    const newOf = (p: string) => this.users.get(p) as string;
    const newChat = [newOf(a), newOf(b)].sort().join('_');
    const messages = messageRows(parsed, newChat, pair, newOf);
    const head = (messages.at(-1) as (typeof messages)[number]).row;
    const summaries: SummaryRow[] = [];
    for (const [me, peer] of [pair, [b, a] as const]) {
      summaries.push(summaryRow(head, newOf(me), newOf(peer), await this.flagsOf(me, peer, chatId)));
    }
    try {
      if (await this.store.importChat({ sourceId: chatId, chatId: newChat, messages, summaries }, this.now)) {
        this.counts.chats++;
        this.counts.messages += messages.length;
      } else this.counts.chatsBefore++;
    } catch (e) {
      this.counts.chatsFailed++;
      this.failed.push(`${path}: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (this.counts.messages >= this.nextProgress) {
      this.hooks.progress(`  ${this.counts.messages.toLocaleString('en-US')} messages, ${this.counts.chats} chats...`);
      while (this.nextProgress <= this.counts.messages) this.nextProgress += PROGRESS_EVERY;
    }
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

  private async contacts(uid: string, value: unknown) {
    if (!isObject(value)) return this.skip(`contacts/${uid}`, 'not an object');
    for (const [other, v] of Object.entries(value)) {
      const path = `contacts/${uid}/${other}`;
      if (v !== true) continue;
      const missing = [uid, other].find((p) => !this.users.has(p));
      if (missing) {
        this.skip(path, `user ${missing} was not imported`);
        continue;
      }
      // Stored both ways in the original too: the pair is one contact.
      const pair = [uid, other].sort().join('_');
      if (await this.store.addContact(pair, this.users.get(uid) as string, this.users.get(other) as string, this.now))
        this.counts.contacts++;
    }
  }

  private async broadcast(id: string, value: unknown) {
    const n = sourceBroadcastSchema.safeParse(value);
    if (!n.success) return this.skip(`notifications/${id}`, why(n.error));
    const from = (n.data.from && this.users.get(n.data.from)) || n.data.from || 'admin';
    const row = {
      id: newTimeOrderedId(n.data.timestamp),
      message: n.data.message,
      video_url: n.data.videoUrl ?? null,
      image_url: n.data.imageUrl ?? null,
      timestamp: n.data.timestamp,
      from_id: from,
    };
    if (await this.store.addBroadcast(id, row, this.now)) this.counts.broadcasts++;
  }

  private async requests(uid: string, value: unknown) {
    if (!isObject(value)) return this.skip(`userNotifications/${uid}`, 'not an object');
    for (const [id, raw] of Object.entries(value)) {
      const path = `userNotifications/${uid}/${id}`;
      const r = sourceRequestSchema.safeParse(raw);
      if (!r.success) {
        this.skip(path, why(r.error));
        continue;
      }
      if (r.data.type !== undefined && r.data.type !== 'request') {
        this.skip(path, `type "${r.data.type}" is not one the original app shows as a request`);
        continue;
      }
      const missing = [uid, r.data.from].find((p) => !this.users.has(p));
      if (missing) {
        this.skip(path, `user ${missing} was not imported`);
        continue;
      }
      const to = this.users.get(uid) as string;
      const from = this.users.get(r.data.from) as string;
      const row = {
        id: newId(),
        user_id: to,
        type: 'request' as const,
        from_id: from,
        from_username: this.usernameOf.get(r.data.from) ?? r.data.fromUsername ?? null,
        message: r.data.message,
        sealed: 0 as const,
        timestamp: r.data.timestamp,
        read: bit(r.data.read),
        // Accepting it makes the text the chat's message (NotificationStore.respondRequest).
        msg_id: newTimeOrderedId(r.data.timestamp),
      };
      if (await this.store.addRequest(`${uid}/${id}`, row, this.now)) this.counts.requests++;
    }
  }

  private async privacy(uid: string, value: unknown) {
    const path = `userSettings/${uid}`;
    const user = this.users.get(uid);
    if (!user) return this.skip(path, `user ${uid} was not imported`);
    const p = sourcePrivacySchema.safeParse(isObject(value) ? value.privacy : undefined);
    if (!p.success) return this.skip(`${path}/privacy`, why(p.error));
    const s = {
      read_receipts: bit(p.data.readReceipts),
      last_seen: bit(p.data.lastSeen),
      require_request: bit(p.data.requireRequest),
    };
    if (await this.store.setPrivacy(uid, user, s, this.now)) this.counts.privacy++;
  }

  private async setting(key: string, value: unknown) {
    if (key !== 'helpLink') return this.skip(`settings/${key}`, 'not a setting of the original app: ignored');
    const link = helpLinkSchema.safeParse(value);
    if (!link.success) return this.skip('settings/helpLink', why(link.error));
    const r = await this.store.setHelpLink(link.data, this.now);
    if (r.set) this.counts.helpLink++;
    else if (r.kept !== null) this.skip('settings/helpLink', `Parley already has a help link (${r.kept}): kept`);
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
