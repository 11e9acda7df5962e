/**
 * The administrator's address (ADMIN_EMAIL): whoever holds it becomes the administrator
 * once it is verified, so the operator is told when an unverified account sits on it.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { User } from '../storage/accounts/users.ts';

/** Tells the operator when an unverified account sits on ADMIN_EMAIL (at start-up, and when someone tries it). */
export function warnUnverifiedAdmin(log: FastifyBaseLogger, holder: User): void {
  if (holder.emailVerified) return;
  log.warn(
    { holder: `@${holder.username}`, createdAt: new Date(holder.createdAt).toISOString() },
    'ADMIN_EMAIL is held by an unverified account: if it is not yours, use "Forgot password" with that address to take it over',
  );
}
