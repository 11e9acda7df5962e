/**
 * An account as the server knows it: the user row and what a sign-up gives, a session,
 * an e-mail token, and the refusal of a handle or address already taken (AccountStore
 * in account-store.ts reads and writes them).
 */

import type { KdfParamsWire } from '@app/protocol';
import type { Selectable } from 'kysely';
import type { Bool, EmailTokenKind, UsersTable } from '../schema.ts';
import type { EmailLoginStored } from './key-store.ts';

export type UserRow = Selectable<UsersTable>;

export interface User {
  id: string;
  username: string;
  name: string;
  email: string;
  emailVerified: boolean;
  phone: string;
  age: number;
  profilePic: string | null;
  passwordHash: string;
  /** 0: passwordHash is of the password itself (from before end-to-end encryption); 1: of `auth`. */
  authVersion: number;
  createdAt: number;
  updatedAt: number | null;
  status: string;
  lastSeen: number | null;
  verified: boolean;
  blocked: boolean;
}

export interface NewUser {
  username: string;
  name: string;
  email: string;
  phone: string;
  age: number;
  passwordHash: string;
  /**
   * The password KDF of a `passwordHash` of `auth`, and the e-mail address's own credential
   * (absent: the handle's serves both); absent: a legacy account (a hash of the password).
   */
  e2ee?: { kdf: KdfParamsWire; salt: string; email?: EmailLoginStored };
  now: number;
}

export interface SessionRecord {
  tokenHash: string;
  userId: string;
  createdAt: number;
  authAt: number;
  lastUsedAt: number;
  expiresAt: number;
  persistent: boolean;
}

export interface EmailToken {
  tokenHash: string;
  userId: string;
  kind: EmailTokenKind;
  email: string;
  expiresAt: number;
}

/** Thrown when a unique handle or e-mail is already taken. */
export class TakenError extends Error {
  readonly field: 'username' | 'email';
  constructor(field: 'username' | 'email') {
    super(`${field} taken`);
    this.field = field;
  }
}

export const b = (v: boolean): Bool => (v ? 1 : 0);

export function toUser(r: UserRow): User {
  return {
    id: r.id,
    username: r.username,
    name: r.name,
    email: r.email,
    emailVerified: r.email_verified === 1,
    phone: r.phone,
    age: r.age,
    profilePic: r.profile_pic,
    passwordHash: r.password_hash,
    authVersion: r.auth_version,
    createdAt: Number(r.created_at),
    updatedAt: r.updated_at === null ? null : Number(r.updated_at),
    status: r.status,
    lastSeen: r.last_seen === null ? null : Number(r.last_seen),
    verified: r.verified === 1,
    blocked: r.blocked === 1,
  };
}

export function isUniqueViolation(e: unknown): string | null {
  const err = e as { code?: string; message?: string; constraint?: string; detail?: string };
  if (err?.code === '23505') return `${err.constraint ?? ''} ${err.detail ?? ''}`;
  if (err?.code === 'SQLITE_CONSTRAINT_UNIQUE' || err?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
    return err.message ?? '';
  return null;
}
