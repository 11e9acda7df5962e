/**
 * Table types. Booleans are stored as 0/1 integers and times as ms since the epoch
 * in both engines, so one set of migrations and queries serves SQLite and PostgreSQL.
 * `Generated` columns have a default (inserts may leave them out).
 */
import type { Generated } from 'kysely';

export type Bool = 0 | 1;

export interface UsersTable {
  id: string;
  username: string;
  username_lower: string;
  name: string;
  email: string;
  email_lower: string;
  email_verified: Bool;
  phone: string;
  age: number;
  profile_pic: string | null;
  password_hash: string;
  created_at: number;
  updated_at: number | null;
  status: string;
  last_seen: number | null;
  verified: Bool;
  blocked: Bool;
  pin_hash: string | null;
  pin_failures: number;
  pin_locked_until: number | null;
  /** Next update-log sequence number for this user. */
  update_seq: number;
  /** When the user last opened /notifications (broadcasts after it are unseen). */
  notifications_seen_at: number | null;
  /** The password KDF's parameters (JSON) and salt; null for an account from before them. */
  kdf: string | null;
  kdf_salt: string | null;
  /** The e-mail address's own credential (JSON EmailLoginStored, migration 012); null: the handle's serves. */
  email_login: string | null;
  /** 0: password_hash is of the password; 1: of the browser-derived `auth`. */
  auth_version: number;
  /** The bytes of the user's attachments on the server (migration 015), against their quota. */
  attachment_bytes: Generated<number>;
}

export interface SessionsTable {
  token_hash: string;
  user_id: string;
  created_at: number;
  /** When the password was last proven in this session (sign-in or change). */
  auth_at: number;
  last_used_at: number;
  expires_at: number;
  persistent: Bool;
  user_agent: string | null;
  ip: string | null;
  /** Until when a verified PIN opens this session's locked chats. */
  pin_unlocked_until: number | null;
}

export type EmailTokenKind = 'verify' | 'reset';

export interface EmailTokensTable {
  token_hash: string;
  user_id: string;
  kind: EmailTokenKind;
  email: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface MessagesTable {
  chat_id: string;
  id: string;
  sender_id: string;
  recipient_id: string;
  /** The ciphertext when `sealed` (base64url; '' once deleted); a message from before: its text. */
  text: string;
  sealed: Generated<Bool>;
  /** Which revision the ciphertext is (0, +1 per edit). */
  rev: Generated<number>;
  timestamp: number;
  status: 'sent' | 'delivered' | 'read';
  edited: Bool;
  deleted: Bool;
  delivered_at: number | null;
  read_at: number | null;
}

export interface UserChatsTable {
  user_id: string;
  chat_id: string;
  peer_id: string;
  /** The newest message's text as stored (see MessagesTable.text), and what it is. */
  last_message: string | null;
  last_id: string | null;
  last_sender: string | null;
  last_rev: Generated<number>;
  last_sealed: Generated<Bool>;
  last_deleted: Generated<Bool>;
  /** The chat's current key, "epoch:low,high" (a copy of chat_keys' newest, for sends). */
  chat_key: string | null;
  timestamp: number;
  unread_count: number;
  archived: Bool;
  locked: Bool;
  /** Protocol chat-flags.ts: when pinned, until when muted (null: neither), marked unread. */
  pinned_at: number | null;
  muted_until: number | null;
  marked_unread: Generated<Bool>;
}

export interface NotificationsTable {
  id: string;
  message: string;
  video_url: string | null;
  image_url: string | null;
  timestamp: number;
  from_id: string;
}

export interface UserNotificationsTable {
  id: string;
  user_id: string;
  type: 'request' | 'info';
  from_id: string | null;
  from_username: string | null;
  /** A request's first message: its ciphertext when `sealed`. */
  message: string;
  sealed: Generated<Bool>;
  timestamp: number;
  read: Bool;
  /** A request's client message id: the message it becomes once accepted. */
  msg_id: string | null;
}

export interface ContactsTable {
  user_id: string;
  other_id: string;
  created_at: number;
}

export interface UserSettingsTable {
  user_id: string;
  read_receipts: Bool;
  last_seen: Bool;
  require_request: Bool;
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface UserUpdatesTable {
  user_id: string;
  seq: number;
  kind: string;
  payload: string;
  created_at: number;
}

export interface AuditLogTable {
  id: string;
  at: number;
  actor_id: string | null;
  actor_username: string | null;
  action: string;
  target_id: string | null;
  target_label: string | null;
  detail: string | null;
}

/** An attempt counter or pacing slot (security/limits.ts). */
export interface RateLimitsTable {
  key: string;
  count: number;
  reset_at: number;
}

/** An account's keys (migration 006). */
export interface UserKeysTable {
  user_id: string;
  id_version: number;
  ik_pub: string;
  uk_epoch: number;
  uk_pub: string;
  uk_sig: string;
  bundle: string;
  bundle_version: number;
  bundle_stale: Bool;
  updated_at: number;
}

/** A bundle sealed by an earlier password, with that password's KDF salt. */
export interface UserKeyArchiveTable {
  user_id: string;
  bundle_version: number;
  id_version: number;
  bundle: string;
  kdf: string;
  kdf_salt: string;
  created_at: number;
}

/** Each identity key an account has had, by generation (migration 008). */
export interface UserIdentitiesTable {
  user_id: string;
  id_version: number;
  ik_pub: string;
  created_at: number;
}

/** The account's keys sealed under its recovery key (migration 008). */
export interface UserRecoveryTable {
  user_id: string;
  bundle: string;
  created_at: number;
}

/** A user's sealed account data: pins and verified marks (migration 011). */
export interface UserAccountDataTable {
  user_id: string;
  version: number;
  data: string;
  updated_at: number;
}

/** A chat's key for one epoch (migration 007). */
export interface ChatKeysTable {
  chat_id: string;
  epoch: number;
  creator_id: string;
  /** The participants' encryption-key epochs it is sealed to, "low,high" by user id. */
  uk_epochs: string;
  /** The envelope as JSON (sealed to both participants, signed by its creator). */
  envelope: string;
  created_at: number;
}

/** A browser's Web Push subscription, one per session (migration 009). */
export interface PushSubscriptionsTable {
  endpoint: string;
  user_id: string;
  token_hash: string;
  p256dh: string;
  auth: string;
  created_at: number;
}

/** What `import-rtdb` made of an original-app record (migration 010). */
export interface ImportIdsTable {
  /** user, chat, message, broadcast or request. */
  kind: string;
  /** The original's id (a message: "chatId/messageId"). */
  source_id: string;
  new_id: string;
  created_at: number;
}

/** One person's sealed reaction to one message (migration 014). */
export interface ReactionsTable {
  chat_id: string;
  msg_id: string;
  user_id: string;
  ct: string;
  at: number;
}

/** One upload (migration 015): a sealed blob, bound to the message it went out in. */
export interface AttachmentsTable {
  id: string;
  owner_id: string;
  /** Sealed bytes, as declared when the upload began. */
  size: number;
  created_at: number;
  /** 1 once every byte is uploaded. */
  complete: Bool;
  chat_id: string | null;
  msg_id: string | null;
}

export interface UserTotpTable {
  user_id: string;
  /** The secret sealed under the server's key (auth/totp.ts). */
  secret: string;
  confirmed: Bool;
  last_step: number;
  created_at: number;
}

export interface UserPasskeysTable {
  /** The credential id (base64url). */
  id: string;
  user_id: string;
  /** The COSE public key (base64url). */
  public_key: string;
  counter: number;
  /** Comma-separated transports the authenticator named. */
  transports: string;
  name: string;
  created_at: number;
  last_used_at: number | null;
}

export interface UserRecoveryCodesTable {
  user_id: string;
  n: number;
  code_hash: string;
  used_at: number | null;
}

export interface PendingSignInsTable {
  token_hash: string;
  user_id: string;
  login: string;
  remember: Bool;
  attempts: Generated<number>;
  challenge: string | null;
  expires_at: number;
}

export interface PasskeyChallengesTable {
  user_id: string;
  challenge: string;
  expires_at: number;
}

export interface Database {
  users: UsersTable;
  user_totp: UserTotpTable;
  user_passkeys: UserPasskeysTable;
  user_recovery_codes: UserRecoveryCodesTable;
  pending_sign_ins: PendingSignInsTable;
  passkey_challenges: PasskeyChallengesTable;
  sessions: SessionsTable;
  email_tokens: EmailTokensTable;
  messages: MessagesTable;
  user_chats: UserChatsTable;
  notifications: NotificationsTable;
  user_notifications: UserNotificationsTable;
  contacts: ContactsTable;
  user_settings: UserSettingsTable;
  settings: SettingsTable;
  user_updates: UserUpdatesTable;
  audit_log: AuditLogTable;
  rate_limits: RateLimitsTable;
  user_keys: UserKeysTable;
  user_key_archive: UserKeyArchiveTable;
  user_identities: UserIdentitiesTable;
  user_recovery: UserRecoveryTable;
  user_account_data: UserAccountDataTable;
  chat_keys: ChatKeysTable;
  push_subscriptions: PushSubscriptionsTable;
  import_ids: ImportIdsTable;
  reactions: ReactionsTable;
  attachments: AttachmentsTable;
}
