/**
 * "Where you're signed in": the account's live sessions as Settings lists them, each named
 * by an id of its own (not the token's hash the server keys it by), the browser and system
 * read from the user agent it signed in with, and when it was last active (to the hour:
 * a session's use is recorded at most hourly).
 */
import { z } from 'zod';

export const sessionInfoSchema = z.object({
  id: z.string(),
  /** "Chrome 131", or "Unknown browser". */
  browser: z.string(),
  /** "Windows 11", "Android 15", or "Unknown system". */
  system: z.string(),
  createdAt: z.number().int().nonnegative(),
  lastActiveAt: z.number().int().nonnegative(),
  /** The session of the browser asking. */
  current: z.boolean(),
});
export type SessionInfo = z.infer<typeof sessionInfoSchema>;

/** GET API.sessions: this one first, then the most recently active. */
export const sessionsResponseSchema = z.object({ sessions: z.array(sessionInfoSchema) });
export type SessionsResponse = z.infer<typeof sessionsResponseSchema>;

/** DELETE API.sessions: how many browsers were signed out. */
export const sessionsEndedSchema = z.object({ ended: z.number().int().nonnegative() });

/** A session id as the API gives it (base64url, 22 characters). */
export const sessionIdSchema = z.string().regex(/^[A-Za-z0-9_-]{22}$/, 'Session not found');

export const SESSIONS_MSG = {
  notFound: 'That browser is already signed out',
  current: 'Use Sign Out to sign out of this browser',
} as const;
