/** The whole data model of ARCHITECTURE.md section 3, written once for SQLite and PostgreSQL. */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('username_lower', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_lower', 'text', (c) => c.notNull().unique())
    .addColumn('email_verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('age', 'integer', (c) => c.notNull())
    .addColumn('profile_pic', 'text')
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('offline'))
    .addColumn('last_seen', 'bigint')
    .addColumn('verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('blocked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('pin_hash', 'text')
    .addColumn('pin_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('pin_locked_until', 'bigint')
    .addColumn('update_seq', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('auth_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('persistent', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('user_agent', 'text')
    .addColumn('ip', 'text')
    .execute();
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();

  await db.schema
    .createTable('email_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('email_tokens_user_idx').on('email_tokens').columns(['user_id', 'kind']).execute();

  // Messages outlive neither participant's wish: they are deleted with their sender,
  // but not with the recipient (the peer's copy of the chat keeps their own messages).
  await db.schema
    .createTable('messages')
    .addColumn('chat_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('sender_id', 'text', (c) => c.notNull())
    .addColumn('recipient_id', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('timestamp', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('sent'))
    .addColumn('edited', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('delivered_at', 'bigint')
    .addColumn('read_at', 'bigint')
    .addPrimaryKeyConstraint('messages_pk', ['chat_id', 'id'])
    .execute();
  await db.schema.createIndex('messages_chat_time_idx').on('messages').columns(['chat_id', 'timestamp']).execute();
  await db.schema.createIndex('messages_sender_idx').on('messages').column('sender_id').execute();

  await db.schema
    .createTable('user_chats')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('chat_id', 'text', (c) => c.notNull())
    .addColumn('peer_id', 'text', (c) => c.notNull())
    .addColumn('last_message', 'text')
    .addColumn('timestamp', 'bigint', (c) => c.notNull())
    .addColumn('unread_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('archived', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('user_chats_pk', ['user_id', 'chat_id'])
    .execute();
  await db.schema.createIndex('user_chats_user_time_idx').on('user_chats').columns(['user_id', 'timestamp']).execute();

  await db.schema
    .createTable('notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('video_url', 'text')
    .addColumn('image_url', 'text')
    .addColumn('timestamp', 'bigint', (c) => c.notNull())
    .addColumn('from_id', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('notifications_time_idx').on('notifications').column('timestamp').execute();

  await db.schema
    .createTable('user_notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('from_id', 'text')
    .addColumn('from_username', 'text')
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('timestamp', 'bigint', (c) => c.notNull())
    .addColumn('read', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('user_notifications_user_idx')
    .on('user_notifications')
    .columns(['user_id', 'timestamp'])
    .execute();

  await db.schema
    .createTable('contacts')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('other_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('contacts_pk', ['user_id', 'other_id'])
    .execute();
  await db.schema.createIndex('contacts_other_idx').on('contacts').column('other_id').execute();

  await db.schema
    .createTable('user_settings')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('read_receipts', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('last_seen', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('require_request', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('user_updates')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_updates_pk', ['user_id', 'seq'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    'user_updates',
    'settings',
    'user_settings',
    'contacts',
    'user_notifications',
    'notifications',
    'user_chats',
    'messages',
    'email_tokens',
    'sessions',
    'users',
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
