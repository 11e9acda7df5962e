/**
 * Account keys and password credentials for end-to-end encryption (migration 006). The
 * server keeps public keys, bundles sealed by keys it never sees, and argon2id of the
 * browser-derived `auth`; nothing here can open a bundle.
 */
import {
  type ArchivedBundle,
  type IdentityWire,
  type KdfParamsWire,
  MAX_IDENTITIES,
  type NewKeys,
  type OwnKeys,
  type PublicKeysWire,
} from '@app/protocol';
import type { Kysely, Selectable, Transaction } from 'kysely';
import { lockUser } from '../people-locks.ts';
import type { Database, UserKeysTable } from '../schema.ts';

type Tx = Kysely<Database> | Transaction<Database>;
type KeyRow = Selectable<UserKeysTable>;

/** The e-mail address's own credential as stored: argon2id of its `auth`, its salt, and its sealed `wrap`. */
export interface EmailLoginStored {
  authHash: string;
  salt: string;
  wrap: string;
}

/** What a password becomes on the server: argon2id of `auth`, and the salt to derive it again. */
export interface StoredCredentials {
  authHash: string;
  kdf: KdfParamsWire;
  salt: string;
  email: EmailLoginStored;
}

export interface AccountKdf {
  /** 0: the hash is of the password (an account from before end-to-end encryption). */
  authVersion: number;
  kdf: KdfParamsWire | null;
  salt: string | null;
  /** Null: set before migration 012 (or a legacy account); the address answers the handle's salt. */
  email: EmailLoginStored | null;
}

function publicOf(userId: string, r: KeyRow, identities: IdentityWire[]): PublicKeysWire {
  // An account's rows are written together; the current identity is last in any case.
  const earlier = identities.filter((i) => i.ik !== r.ik_pub).slice(-(MAX_IDENTITIES - 1));
  const current = identities.find((i) => i.ik === r.ik_pub) ?? {
    ik: r.ik_pub,
    idVersion: r.id_version,
    since: Number(r.updated_at),
  };
  return {
    userId,
    ik: r.ik_pub,
    ukEpoch: r.uk_epoch,
    uk: r.uk_pub,
    ukSig: r.uk_sig,
    identities: [...earlier, current],
  };
}

/** The identities of `userIds`, oldest first, by user. */
async function identitiesOf(tx: Tx, userIds: readonly string[]): Promise<Map<string, IdentityWire[]>> {
  const rows = await tx
    .selectFrom('user_identities')
    .select(['user_id', 'id_version', 'ik_pub', 'created_at'])
    .where('user_id', 'in', userIds)
    .orderBy('user_id')
    .orderBy('id_version')
    .execute();
  const byUser = new Map<string, IdentityWire[]>();
  for (const r of rows) {
    const list = byUser.get(r.user_id) ?? [];
    list.push({ ik: r.ik_pub, idVersion: r.id_version, since: Number(r.created_at) });
    byUser.set(r.user_id, list);
  }
  return byUser;
}

/** Records generation `idVersion` of an account's identity (once), keeping the newest MAX_IDENTITIES. */
async function recordIdentity(tx: Tx, userId: string, idVersion: number, ik: string, now: number) {
  await tx
    .insertInto('user_identities')
    .values({ user_id: userId, id_version: idVersion, ik_pub: ik, created_at: now })
    .onConflict((oc) => oc.doNothing())
    .execute();
  await tx
    .deleteFrom('user_identities')
    .where('user_id', '=', userId)
    .where('id_version', '<=', idVersion - MAX_IDENTITIES)
    .execute();
}

function keyColumns(keys: NewKeys) {
  return {
    id_version: 1,
    ik_pub: keys.ik,
    uk_epoch: keys.ukEpoch,
    uk_pub: keys.uk,
    uk_sig: keys.ukSig,
    bundle: keys.bundle,
    bundle_version: 1,
    bundle_stale: 0,
  } as const;
}

/** Stores an account's first keys (sign-up, a legacy account's upgrade). */
export async function insertKeys(tx: Tx, userId: string, keys: NewKeys, now: number): Promise<void> {
  await tx
    .insertInto('user_keys')
    .values({ ...keyColumns(keys), user_id: userId, updated_at: now })
    .execute();
  await recordIdentity(tx, userId, 1, keys.ik, now);
}

export function credentialColumns(c: StoredCredentials) {
  return {
    password_hash: c.authHash,
    kdf: JSON.stringify(c.kdf),
    kdf_salt: c.salt,
    email_login: JSON.stringify(c.email),
    auth_version: 1,
  } as const;
}

export class KeyStore {
  private readonly db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  /** How many accounts still sign in with a password from before end-to-end encryption. */
  async legacyPasswordCount(): Promise<number> {
    const r = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('auth_version', '=', 0)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /** How many accounts derive with each KDF setting, the most common first (prelogin's made-up answers). */
  async kdfMix(): Promise<{ kdf: KdfParamsWire; accounts: number }[]> {
    const rows = await this.db
      .selectFrom('users')
      .select(['kdf', (eb) => eb.fn.countAll<number | string>().as('n')])
      .where('kdf', 'is not', null)
      .groupBy('kdf')
      .execute();
    return rows
      .map((r) => ({ kdf: JSON.parse(r.kdf as string) as KdfParamsWire, accounts: Number(r.n) }))
      .sort((a, b) => b.accounts - a.accounts || JSON.stringify(a.kdf).localeCompare(JSON.stringify(b.kdf)));
  }

  async kdfOf(userId: string): Promise<AccountKdf | null> {
    const r = await this.db
      .selectFrom('users')
      .select(['kdf', 'kdf_salt', 'email_login', 'auth_version'])
      .where('id', '=', userId)
      .executeTakeFirst();
    if (!r) return null;
    return {
      authVersion: r.auth_version,
      kdf: r.kdf ? JSON.parse(r.kdf) : null,
      salt: r.kdf_salt,
      email: r.email_login ? JSON.parse(r.email_login) : null,
    };
  }

  async ownKeys(userId: string): Promise<OwnKeys | null> {
    const r = await this.db
      .selectFrom('user_keys')
      .innerJoin('users', 'users.id', 'user_keys.user_id')
      .selectAll('user_keys')
      .select(['users.kdf', 'users.kdf_salt'])
      .where('user_keys.user_id', '=', userId)
      .executeTakeFirst();
    if (!r?.kdf || !r.kdf_salt) return null;
    const identities = (await identitiesOf(this.db, [userId])).get(userId) ?? [];
    return {
      publicKeys: publicOf(userId, r, identities),
      bundle: r.bundle,
      bundleVersion: r.bundle_version,
      idVersion: r.id_version,
      stale: r.bundle_stale === 1,
      kdf: JSON.parse(r.kdf),
      salt: r.kdf_salt,
    };
  }

  async publicKeys(userIds: readonly string[]): Promise<PublicKeysWire[]> {
    if (userIds.length === 0) return [];
    const rows = await this.db.selectFrom('user_keys').selectAll().where('user_id', 'in', userIds).execute();
    const identities = rows.length ? await identitiesOf(this.db, userIds) : new Map<string, IdentityWire[]>();
    return rows.map((r) => publicOf(r.user_id, r, identities.get(r.user_id) ?? []));
  }

  /**
   * The bundles sealed by a password from before a reset that no later bundle took in:
   * what they hold is locked until the old password (or a browser that still has the
   * keys) brings it back and names them in `merged`.
   */
  async lockedArchive(userId: string): Promise<ArchivedBundle[]> {
    const rows = await this.db
      .selectFrom('user_key_archive')
      .select(['bundle_version', 'id_version', 'bundle', 'kdf', 'kdf_salt'])
      .where('user_id', '=', userId)
      .orderBy('bundle_version', 'desc')
      .limit(MAX_IDENTITIES)
      .execute();
    return rows.map((r) => ({
      bundleVersion: r.bundle_version,
      idVersion: r.id_version,
      bundle: r.bundle,
      kdf: JSON.parse(r.kdf),
      salt: r.kdf_salt,
    }));
  }

  /**
   * A password change: new credentials and the same keys re-sealed under the new password,
   * in one transaction. False when the bundle moved on meanwhile (another browser changed
   * it): nothing is written.
   */
  async changePassword(userId: string, c: StoredCredentials, bundle: string, bundleVersion: number, now: number) {
    return this.db.transaction().execute(async (tx) => {
      await lockUser(tx, userId, 'change');
      const r = await tx
        .updateTable('user_keys')
        .set({ bundle, bundle_version: bundleVersion, bundle_stale: 0, updated_at: now })
        .where('user_id', '=', userId)
        .where('bundle_version', '=', bundleVersion - 1)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      await tx.updateTable('users').set(credentialColumns(c)).where('id', '=', userId).execute();
      return true;
    });
  }

  /**
   * A reset (by e-mail or by the operator): new credentials, while the bundle stays sealed
   * by the old password. It is archived with the old salt (so the old password can unlock
   * it later) and marked stale until a browser re-seals or replaces it.
   */
  async resetPassword(userId: string, c: StoredCredentials, now: number): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await lockUser(tx, userId, 'change');
      const user = await tx.selectFrom('users').select(['kdf', 'kdf_salt']).where('id', '=', userId).executeTakeFirst();
      const keys = await tx.selectFrom('user_keys').selectAll().where('user_id', '=', userId).executeTakeFirst();
      if (user?.kdf && user.kdf_salt && keys && keys.bundle_stale === 0) {
        await tx
          .insertInto('user_key_archive')
          .values({
            user_id: userId,
            bundle_version: keys.bundle_version,
            id_version: keys.id_version,
            bundle: keys.bundle,
            kdf: user.kdf,
            kdf_salt: user.kdf_salt,
            created_at: now,
          })
          .onConflict((oc) => oc.doNothing())
          .execute();
        await tx
          .updateTable('user_keys')
          .set({ bundle_stale: 1, updated_at: now })
          .where('user_id', '=', userId)
          .execute();
      }
      await tx.updateTable('users').set(credentialColumns(c)).where('id', '=', userId).execute();
    });
  }

  /**
   * After a reset: the same keys re-sealed under the current password (`keys` absent), or a
   * new identity (`keys`). Compare-and-set on the bundle version; false when it moved on.
   * An account without keys (reset before it ever had any) gets its first ones here.
   */
  async putKeys(
    userId: string,
    input: { bundle: string; bundleVersion: number; keys?: Omit<NewKeys, 'bundle'>; merged?: number[] },
    now: number,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      if (!(await lockUser(tx, userId, 'keep'))) return false;
      if (input.bundleVersion === 1) {
        if (!input.keys) return false;
        const r = await tx
          .insertInto('user_keys')
          .values({ ...keyColumns({ ...input.keys, bundle: input.bundle }), user_id: userId, updated_at: now })
          .onConflict((oc) => oc.doNothing())
          .executeTakeFirst();
        if (Number(r.numInsertedOrUpdatedRows ?? 0) !== 1) return false;
        await recordIdentity(tx, userId, 1, input.keys.ik, now);
        return true;
      }
      const k = input.keys;
      const r = await tx
        .updateTable('user_keys')
        .set((eb) => ({
          ...(k && {
            id_version: eb('id_version', '+', 1),
            ik_pub: k.ik,
            uk_epoch: k.ukEpoch,
            uk_pub: k.uk,
            uk_sig: k.ukSig,
          }),
          bundle: input.bundle,
          bundle_version: input.bundleVersion,
          bundle_stale: 0,
          updated_at: now,
        }))
        .where('user_id', '=', userId)
        .where('bundle_version', '=', input.bundleVersion - 1)
        // A new identity's key epoch comes after every earlier one: each epoch number means one key.
        .$if(k !== undefined, (q) => q.where('uk_epoch', '<', k?.ukEpoch ?? 0))
        .returning(['id_version'])
        .executeTakeFirst();
      if (!r) return false;
      if (k) await recordIdentity(tx, userId, r.id_version, k.ik, now);
      // Archived bundles whose keys the new one holds (the browser says which: only it can tell).
      if (input.merged?.length) {
        await tx
          .deleteFrom('user_key_archive')
          .where('user_id', '=', userId)
          .where('bundle_version', 'in', input.merged)
          .execute();
      }
      return true;
    });
  }

  async recovery(userId: string): Promise<{ bundle: string; createdAt: number } | null> {
    const r = await this.db
      .selectFrom('user_recovery')
      .select(['bundle', 'created_at'])
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return r ? { bundle: r.bundle, createdAt: Number(r.created_at) } : null;
  }

  /** Replaces (or with null, removes) the account's recovery bundle. */
  async setRecovery(userId: string, bundle: string | null, now: number): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await lockUser(tx, userId, 'keep');
      await tx.deleteFrom('user_recovery').where('user_id', '=', userId).execute();
      if (bundle) await tx.insertInto('user_recovery').values({ user_id: userId, bundle, created_at: now }).execute();
    });
  }

  /**
   * Gives an address its own credential, if the password is still the one whose hash the
   * route checked (`passwordHash`): false when a change or reset came first, whose new
   * credentials carry their own.
   */
  async setEmailLogin(userId: string, passwordHash: string, email: EmailLoginStored): Promise<boolean> {
    const r = await this.db
      .updateTable('users')
      .set({ email_login: JSON.stringify(email) })
      .where('id', '=', userId)
      .where('password_hash', '=', passwordHash)
      .where('auth_version', '=', 1)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** A legacy account's first keys, with the credentials that replace its password hash. */
  async upgrade(userId: string, c: StoredCredentials, keys: NewKeys, now: number) {
    return this.db.transaction().execute(async (tx) => {
      await lockUser(tx, userId, 'change');
      const r = await tx
        .updateTable('users')
        .set(credentialColumns(c))
        .where('id', '=', userId)
        .where('auth_version', '=', 0)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      await insertKeys(tx, userId, keys, now);
      return true;
    });
  }
}

/** With the account: its keys, archived bundles and account data. */
export async function deleteKeys(tx: Tx, userId: string): Promise<void> {
  await tx.deleteFrom('user_keys').where('user_id', '=', userId).execute();
  await tx.deleteFrom('user_account_data').where('user_id', '=', userId).execute();
  await tx.deleteFrom('user_key_archive').where('user_id', '=', userId).execute();
  await tx.deleteFrom('user_identities').where('user_id', '=', userId).execute();
  await tx.deleteFrom('user_recovery').where('user_id', '=', userId).execute();
}
