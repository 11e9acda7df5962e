/** HTTP calls of /admin (the server checks every one: only the administrator may). */
import {
  type AdminUser,
  type AdminUserFlags,
  type AdminUsersPage,
  API,
  type AuditPage,
  adminStatsSchema,
  adminUserResponseSchema,
  adminUsersPageSchema,
  auditPageSchema,
  type Broadcast,
  type BroadcastInput,
  broadcastListSchema,
  broadcastResponseSchema,
  noContentSchema,
  type PublicSettings,
  publicSettingsSchema,
} from '@app/protocol';
import { api } from './api';
import { setHelpLink } from './public-settings';

export function adminStats(): Promise<{ totalUsers: number }> {
  return api(adminStatsSchema, 'GET', API.adminStats);
}

export function adminUsers(query: string, after?: string): Promise<AdminUsersPage> {
  const params = new URLSearchParams({ query });
  if (after) params.set('after', after);
  return api(adminUsersPageSchema, 'GET', `${API.adminUsers}?${params}`);
}

export async function setUserFlags(id: string, flags: AdminUserFlags): Promise<AdminUser> {
  const r = await api(adminUserResponseSchema, 'PATCH', `${API.adminUsers}/${encodeURIComponent(id)}`, flags);
  return r.user;
}

export async function listBroadcasts(): Promise<Broadcast[]> {
  const r = await api(broadcastListSchema, 'GET', API.adminBroadcasts);
  return r.notifications;
}

export async function sendBroadcast(input: BroadcastInput): Promise<Broadcast> {
  const r = await api(broadcastResponseSchema, 'POST', API.adminBroadcasts, input);
  return r.notification;
}

export async function editBroadcast(id: string, input: BroadcastInput): Promise<Broadcast> {
  const r = await api(broadcastResponseSchema, 'PUT', `${API.adminBroadcasts}/${encodeURIComponent(id)}`, input);
  return r.notification;
}

export async function deleteBroadcast(id: string): Promise<void> {
  await api(noContentSchema, 'DELETE', `${API.adminBroadcasts}/${encodeURIComponent(id)}`);
}

export async function saveHelpLink(helpLink: string): Promise<PublicSettings> {
  const r = await api(publicSettingsSchema, 'PUT', API.adminSettings, { helpLink });
  setHelpLink(r.helpLink);
  return r;
}

export function auditLog(before?: string): Promise<AuditPage> {
  return api(auditPageSchema, 'GET', before ? `${API.adminAudit}?${new URLSearchParams({ before })}` : API.adminAudit);
}
