/** HTTP calls of /profile and /privacy-settings, and the PIN check of locked chats. */
import {
  API,
  type PinGrantResponse,
  type Privacy,
  type PrivacyResponse,
  type ProfileInput,
  pinGrantResponseSchema,
  privacyResponseSchema,
  type UserResponse,
  userResponseSchema,
} from '@app/protocol';
import { getChatClient } from '@/client/chat-client-singleton';
import { reauth } from '@/client/keys/account-keys';
import { ApiError, api } from './api';
import { getSession, setUser } from './session';

/** Saves the profile; the session's user is replaced with the saved one. */
export async function saveProfile(input: ProfileInput): Promise<UserResponse> {
  const r = await api(userResponseSchema, 'PUT', API.profile, input);
  setUser(r.user);
  return r;
}

export function loadPrivacy(): Promise<PrivacyResponse> {
  return api(privacyResponseSchema, 'GET', API.privacy);
}

export async function savePrivacy(privacy: Privacy): Promise<PrivacyResponse> {
  const r = await api(privacyResponseSchema, 'PUT', API.privacy, privacy);
  getChatClient()?.setPrivacy(r.privacy);
  return r;
}

/** Sets a first PIN, or (with the account password) changes it. */
export async function setPin(pin: string, password?: string): Promise<PrivacyResponse> {
  const auth = password ? await authFor(password) : undefined;
  return api(privacyResponseSchema, 'PUT', API.pin, auth ? { pin, auth } : { pin });
}

/** Removes the PIN (locked chats are unlocked). */
export async function removePin(password: string): Promise<PrivacyResponse> {
  return api(privacyResponseSchema, 'DELETE', API.pin, { auth: await authFor(password) });
}

/** The signed-in user's `auth` for `password` (the server never sees the password). */
async function authFor(password: string): Promise<string> {
  const { user } = getSession();
  if (!user) throw new ApiError(401, { error: 'unauthenticated', message: 'Please sign in to continue' });
  return (await reauth(user, password)).auth;
}

/**
 * Checks the PIN on the server. Right: this session may open locked chats for a few
 * minutes, and the chat client reloads them. Wrong: ApiError 'invalid_pin', or
 * 'pin_locked' with `retryAt` after too many.
 */
export async function verifyPin(pin: string): Promise<PinGrantResponse> {
  const r = await api(pinGrantResponseSchema, 'POST', API.verifyPin, { pin });
  getChatClient()?.pinGranted();
  return r;
}

export { publicSettings } from './public-settings';
