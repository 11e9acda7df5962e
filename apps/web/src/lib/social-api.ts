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
import { api } from './api';
import { getChatClient } from './chat-client-singleton';
import { setUser } from './session';

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
export function setPin(pin: string, password?: string): Promise<PrivacyResponse> {
  return api(privacyResponseSchema, 'PUT', API.pin, password ? { pin, password } : { pin });
}

/** Removes the PIN (locked chats are unlocked). */
export function removePin(password: string): Promise<PrivacyResponse> {
  return api(privacyResponseSchema, 'DELETE', API.pin, { password });
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
