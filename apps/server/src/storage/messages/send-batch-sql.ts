/**
 * The statements of PostgreSQL's grouped sends (send-batch.ts), each set-based over unnest
 * arrays, so a group takes the same few statements whatever its size. A group queues the
 * first two together, then, once it has decided, the last two and its COMMIT. The guards turn what the locks rule out (a locked row gone) into an error that
 * aborts the transaction before its COMMIT.
 */

/**
 * What a group reads before it decides, in one statement (each part a JSON array):
 * both people of every send (FOR KEY SHARE, in id order), then their summaries of the
 * chats (FOR NO KEY UPDATE, in (user, chat) order: the group writes them), the sends'
 * ids already stored (retries), and when the sessions they came from end.
 */
export const CONTEXT =
  'with p as (select u.id, u.username, u.name, u.profile_pic, u.verified, u.blocked, s.require_request, ' +
  '(select uk_epoch from user_keys k where k.user_id = u.id) as uk_epoch ' +
  'from users u left join user_settings s on s.user_id = u.id where u.id = any($1::text[]) order by u.id for key share of u), ' +
  'c as (select * from user_chats where (user_id, chat_id) in (select * from unnest($2::text[], $3::text[])) ' +
  'order by user_id, chat_id for no key update) ' +
  "select (select coalesce(json_agg(p), '[]') from p) as people, " +
  "(select coalesce(json_agg(c), '[]') from c) as summaries, " +
  "(select coalesce(json_agg(m), '[]') from (select chat_id, id, sender_id from messages " +
  'where (chat_id, id) in (select * from unnest($4::text[], $5::text[]))) m) as stored, ' +
  "(select coalesce(json_agg(x), '[]') from (select token_hash, expires_at from sessions " +
  'where token_hash = any($6::text[])) x) as sessions';
/**
 * An error that aborts the transaction, saying why (a guard for what the locks rule out).
 * It includes a count the statement read, so the planner cannot fold it into a constant
 * and raise it whether or not its branch is taken.
 */
const fail = (why: string, count: string) => `cast('grouped send: ${why} (' || (${count})::text || ')' as int)`;

/**
 * The group's messages and summaries written, in one statement, and its users' rows
 * locked for their seqs, in id order (the summaries are locked already; new messages
 * lock nothing anyone else waits for). Summaries refer to their newest message (its text
 * is in the message row only). $14: the summaries it must change.
 */
export const WRITE =
  'with s as (update user_chats c set last_message = null, last_id = t.msg_id, last_sender = t.sender, last_rev = 0, ' +
  'last_sealed = 1, last_deleted = 0, timestamp = t.ts, unread_count = t.unread ' +
  'from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::int[]) ' +
  'as t(user_id, chat_id, msg_id, sender, ts, unread) where c.user_id = t.user_id and c.chat_id = t.chat_id returning 1), ' +
  'm as (insert into messages (chat_id, id, sender_id, recipient_id, text, sealed, rev, timestamp, status, edited, deleted, delivered_at, read_at) ' +
  "select t.chat_id, t.id, t.sender, t.recipient, t.text, 1, 0, t.ts, 'sent', 0, 0, null, null " +
  'from unnest($7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::bigint[]) as t(chat_id, id, sender, recipient, text, ts) returning 1) ' +
  'select case when (select count(*) from s) <> $14 ' +
  'or (select count(*) from (select id from users where id = any($13::text[]) order by id for no key update) l) ' +
  `<> cardinality($13::text[]) then ${fail('a summary or a user is gone', 'select count(*) from s')} end as guard`;
/**
 * The users' seqs bumped and the log entries inserted, in one statement: entry `k` (from
 * 1) of a user in this group gets the user's seq before the group plus k. Answers each
 * user's seq before the group.
 */
export const LOG =
  'with b as (update users u set update_seq = u.update_seq + t.n from unnest($1::text[], $2::int[]) as t(id, n) ' +
  'where u.id = t.id returning u.id, u.update_seq - t.n as base), ' +
  'i as (insert into user_updates (user_id, seq, kind, payload, created_at) ' +
  'select e.user_id, b.base + e.k, e.kind, e.payload, e.created_at ' +
  'from unnest($3::text[], $4::int[], $5::text[], $6::text[], $7::bigint[]) as e(user_id, k, kind, payload, created_at) ' +
  'join b on b.id = e.user_id returning 1) ' +
  'select b.id, b.base from b union all ' +
  `select 'guard', ${fail('a user is gone', 'select count(*) from i')} where (select count(*) from i) <> cardinality($3::text[])`;
