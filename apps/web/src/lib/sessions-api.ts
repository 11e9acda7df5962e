/** HTTP calls of "Where you're signed in" (/sessions). */
import { API, type SessionInfo, sessionsEndedSchema, sessionsResponseSchema } from '@app/protocol';
import { api, apiJson } from './api';

export async function loadSessions(): Promise<SessionInfo[]> {
  return (await api(sessionsResponseSchema, 'GET', API.sessions)).sessions;
}

/** Signs out another browser of the account. */
export async function endSession(id: string): Promise<void> {
  await apiJson('DELETE', `${API.sessions}/${encodeURIComponent(id)}`);
}

/** Signs out every browser of the account but this one; how many were. */
export async function endOtherSessions(): Promise<number> {
  return (await api(sessionsEndedSchema, 'DELETE', API.sessions)).ended;
}
