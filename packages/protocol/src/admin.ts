/**
 * The administrator's area: the schemas of its HTTP requests, the shapes it reads, and
 * the texts both ends use. Every admin route is checked on the server (the account whose
 * e-mail equals ADMIN_EMAIL, once that e-mail is verified).
 */
import { z } from 'zod';
import { URL_MAX } from './constants.ts';
import { imageUrlSchema, videoUrlSchema } from './social.ts';
import { text } from './text.ts';
import { isSafeHttpUrl } from './validation.ts';

/** Longest broadcast text (not in the spec; a long announcement fits). */
export const BROADCAST_MAX = 2000;
/** Users per page of the admin list. */
export const ADMIN_USERS_PAGE = 100;
/** Audit entries per page. */
export const AUDIT_PAGE = 50;
/** Sent broadcasts the admin list shows (newest first). */
export const BROADCASTS_MAX = 200;

export const ADMIN_MSG = {
  messageRequired: 'Message is required',
  messageTooLong: `Message must be at most ${BROADCAST_MAX} characters`,
  helpLink: 'Help link must start with http:// or https://',
  selfBlock: 'You cannot block your own account',
  selfUnverify: 'You cannot remove your own verification',
  userVerified: 'User Verified',
  verificationRemoved: 'Verification Removed',
  userBlocked: 'User Blocked',
  userUnblocked: 'User Unblocked',
  notificationSent: 'Notification Sent',
  notificationUpdated: 'Notification Updated',
  notificationDeleted: 'Notification Deleted',
  helpLinkUpdated: 'Help Link Updated',
  noNotifications: 'No notifications sent yet',
} as const;

/** A user as the administrator sees them (the only place other people's e-mails appear). */
export const adminUserSchema = z.object({
  id: z.string(),
  username: z.string(),
  name: z.string(),
  email: z.string(),
  emailVerified: z.boolean(),
  verified: z.boolean(),
  blocked: z.boolean(),
  createdAt: z.number().int(),
  /** This is the administrator's own account (cannot be blocked or un-verified). */
  isSelf: z.boolean(),
});
export type AdminUser = z.infer<typeof adminUserSchema>;

/** GET /api/admin/users. */
export const adminUsersPageSchema = z.object({
  users: z.array(adminUserSchema),
  /** Pass as `after` for the next page; null on the last page. */
  next: z.string().nullable(),
  /** Users matching the query (all users when it is empty). */
  total: z.number().int(),
});
export type AdminUsersPage = z.infer<typeof adminUsersPageSchema>;

/** PATCH /api/admin/users/:id. */
export const adminUserResponseSchema = z.object({ user: adminUserSchema });

/** GET /api/admin/stats. */
export const adminStatsSchema = z.object({ totalUsers: z.number().int() });
export type AdminStats = z.infer<typeof adminStatsSchema>;

export const adminUsersQuerySchema = z.strictObject({
  query: text({ trim: true, max: [50, 'Searches can be at most 50 characters'] }).default(''),
  after: text({ max: [50, 'Invalid cursor'] }).optional(),
});

/** Verify/unverify, block/unblock: one or both. */
export const adminUserFlagsSchema = z
  .strictObject({ verified: z.boolean().optional(), blocked: z.boolean().optional() })
  .refine((f) => f.verified !== undefined || f.blocked !== undefined, { error: 'Nothing to change' });
export type AdminUserFlags = z.infer<typeof adminUserFlagsSchema>;

export const broadcastInputSchema = z.strictObject({
  message: text({
    required: ADMIN_MSG.messageRequired,
    trim: true,
    min: [1, ADMIN_MSG.messageRequired],
    max: [BROADCAST_MAX, ADMIN_MSG.messageTooLong],
  }),
  videoUrl: videoUrlSchema.optional().transform((v) => v ?? null),
  imageUrl: imageUrlSchema.optional().transform((v) => v ?? null),
});
export type BroadcastInput = z.input<typeof broadcastInputSchema>;

/** A sent broadcast as the administrator's list shows it. */
export const broadcastSchema = z.object({
  id: z.string(),
  message: z.string(),
  videoUrl: z.string().nullable(),
  imageUrl: z.string().nullable(),
  timestamp: z.number().int(),
});
export type Broadcast = z.infer<typeof broadcastSchema>;

/** GET /api/admin/notifications. */
export const broadcastListSchema = z.object({ notifications: z.array(broadcastSchema) });
/** POST and PUT /api/admin/notifications. */
export const broadcastResponseSchema = z.object({ notification: broadcastSchema });

export const helpLinkInputSchema = z.strictObject({
  helpLink: text({ required: ADMIN_MSG.helpLink, trim: true, max: [URL_MAX, ADMIN_MSG.helpLink] })
    .refine((v) => v === '' || isSafeHttpUrl(v), { error: ADMIN_MSG.helpLink })
    .nullable()
    .transform((v) => (v ? v : null)),
});

export const AUDIT_ACTIONS = [
  'user.verify',
  'user.unverify',
  'user.block',
  'user.unblock',
  'broadcast.create',
  'broadcast.update',
  'broadcast.delete',
  'settings.helpLink',
  'shell.verifyEmail',
  'shell.resetPassword',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** One administrative action: who (null: the shell), what, on what, when. */
export const auditEntrySchema = z.object({
  id: z.string(),
  at: z.number().int(),
  actorId: z.string().nullable(),
  actorUsername: z.string().nullable(),
  action: z.enum(AUDIT_ACTIONS),
  targetId: z.string().nullable(),
  /** What the target was called when it happened (@handle, or the broadcast's first words). */
  targetLabel: z.string().nullable(),
  detail: z.string().nullable(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

/** GET /api/admin/audit. */
export const auditPageSchema = z.object({
  entries: z.array(auditEntrySchema),
  /** Pass as `before` for the next (older) page; null on the last. */
  next: z.string().nullable(),
});
export type AuditPage = z.infer<typeof auditPageSchema>;

export const auditQuerySchema = z.strictObject({
  before: text({ max: [100, 'Invalid cursor'] }).optional(),
});

/** How each action reads in the log. */
export const AUDIT_LABELS: Record<AuditAction, string> = {
  'user.verify': 'Verified',
  'user.unverify': 'Removed verification of',
  'user.block': 'Blocked',
  'user.unblock': 'Unblocked',
  'broadcast.create': 'Sent notification',
  'broadcast.update': 'Edited notification',
  'broadcast.delete': 'Deleted notification',
  'settings.helpLink': 'Set help link',
  'shell.verifyEmail': 'Verified e-mail of',
  'shell.resetPassword': 'Reset password of',
};
