/**
 * Profile, privacy settings, the chat PIN, contact requests and notifications: the
 * schemas both ends parse, their messages, and the rules for user-supplied media URLs.
 */
import { z } from 'zod';
import { PIN_LENGTH, URL_MAX } from './constants.ts';
import { authSchema } from './keys.ts';
import { text } from './text.ts';
import { ageSchema, isSafeHttpUrl, nameSchema, phoneSchema } from './validation.ts';

/** Wrong PINs in a row before PIN checks are refused for PIN_LOCKOUT_MS. */
export const PIN_FAILURES_MAX = 5;
export const PIN_LOCKOUT_MS = 15 * 60 * 1000;
/** How long a verified PIN opens the session's locked chats. */
export const PIN_GRANT_MS = 5 * 60 * 1000;

export const SOCIAL_MSG = {
  pictureUrl: 'Picture URL must start with http:// or https://',
  imageUrl: 'Image URL must start with http:// or https://',
  videoUrl: 'Video URL must be a YouTube or Vimeo link',
  urlTooLong: `URLs can be at most ${URL_MAX} characters`,
  pinFormat: `PIN must be exactly ${PIN_LENGTH} digits`,
  pinInvalid: 'Invalid PIN - Please try again',
  pinLocked: 'Too many wrong PINs. Try again in 15 minutes.',
  pinRequired: 'Set a PIN in Privacy settings first',
  pinPasswordRequired: 'Enter your account password to change or remove your PIN',
  noPin: 'You have not set a PIN',
  chatLocked: 'This chat is locked. Enter your PIN to open it.',
  requestPending: 'Your message request is waiting to be accepted',
  requestAccepted: 'You can now message each other',
} as const;

/** An http(s) URL or nothing: '' and null both mean "none". */
function optionalHttpUrl(message: string) {
  return text({ required: message, trim: true, max: [URL_MAX, SOCIAL_MSG.urlTooLong] })
    .refine((v) => v === '' || isSafeHttpUrl(v), { error: message })
    .nullable()
    .transform((v) => (v ? v : null));
}

export const profilePicSchema = optionalHttpUrl(SOCIAL_MSG.pictureUrl);
export const imageUrlSchema = optionalHttpUrl(SOCIAL_MSG.imageUrl);

export const profileSchema = z.strictObject({
  name: nameSchema,
  phone: phoneSchema,
  age: ageSchema,
  profilePic: profilePicSchema,
});
export type ProfileInput = z.input<typeof profileSchema>;

export const privacySchema = z.strictObject({
  readReceipts: z.boolean(),
  lastSeen: z.boolean(),
  requireRequest: z.boolean(),
});
export type Privacy = z.infer<typeof privacySchema>;

export const pinSchema = z.string({ error: SOCIAL_MSG.pinFormat }).regex(/^[0-9]{6}$/, { error: SOCIAL_MSG.pinFormat });

/** Setting a first PIN needs no password; changing an existing one does (its `auth`, keys.ts). */
export const setPinSchema = z.strictObject({ pin: pinSchema, auth: authSchema.optional() });
export const removePinSchema = z.strictObject({ auth: authSchema });
export const verifyPinSchema = z.strictObject({ pin: pinSchema });

/** GET/PUT /api/me/privacy, PUT/DELETE /api/me/pin. */
export const privacyResponseSchema = z.object({
  privacy: privacySchema,
  hasPin: z.boolean(),
  /** While wrong PINs are refused, until when (ms). */
  pinLockedUntil: z.number().nullable(),
});
export type PrivacyResponse = z.infer<typeof privacyResponseSchema>;

/** POST /api/me/pin/verify. */
export const pinGrantResponseSchema = z.object({
  /** Locked chats open to this session until then (ms). */
  until: z.number(),
});
export type PinGrantResponse = z.infer<typeof pinGrantResponseSchema>;

// ---- media URLs ------------------------------------------------------------------------

const YOUTUBE_ID = /^[A-Za-z0-9_-]{11}$/;
const VIMEO_ID = /^[0-9]{1,12}$/;

/**
 * The official embed URL of a recognised YouTube or Vimeo link, or null. Only these
 * embed URLs are ever put in an iframe; the input is parsed, never passed through.
 */
export function videoEmbedUrl(value: string | null | undefined): string | null {
  if (!value || !isSafeHttpUrl(value)) return null;
  const url = new URL(value);
  const host = url.hostname.toLowerCase().replace(/^(www\.|m\.)/, '');
  const parts = url.pathname.split('/').filter(Boolean);
  let id: string | undefined;
  if (host === 'youtu.be') id = parts[0];
  else if (host === 'youtube.com' || host === 'youtube-nocookie.com' || host === 'music.youtube.com') {
    if (parts[0] === 'watch') id = url.searchParams.get('v') ?? undefined;
    else if (parts[0] === 'embed' || parts[0] === 'shorts' || parts[0] === 'live' || parts[0] === 'v') id = parts[1];
    if (id && YOUTUBE_ID.test(id)) return `https://www.youtube-nocookie.com/embed/${id}`;
    return null;
  }
  if (id !== undefined) return YOUTUBE_ID.test(id) ? `https://www.youtube-nocookie.com/embed/${id}` : null;
  if (host === 'vimeo.com') {
    const vid = parts.find((p) => VIMEO_ID.test(p));
    return vid ? `https://player.vimeo.com/video/${vid}` : null;
  }
  if (host === 'player.vimeo.com' && parts[0] === 'video' && parts[1] && VIMEO_ID.test(parts[1])) {
    return `https://player.vimeo.com/video/${parts[1]}`;
  }
  return null;
}

/** A video URL field: empty, or a link videoEmbedUrl recognises. */
export const videoUrlSchema = text({ required: SOCIAL_MSG.videoUrl, trim: true, max: [URL_MAX, SOCIAL_MSG.urlTooLong] })
  .refine((v) => v === '' || videoEmbedUrl(v) !== null, { error: SOCIAL_MSG.videoUrl })
  .nullable()
  .transform((v) => (v ? v : null));

// ---- wire entities -----------------------------------------------------------------------

const time = z.number().int().nonnegative();

/** One item of /notifications. `read`: seen on /notifications (admin items: seen since sent). */
export const notificationItemSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('request'),
    id: z.string(),
    fromId: z.string(),
    fromUsername: z.string(),
    /** The first message, sealed by its sender: it becomes message `msgId` on Accept. */
    msgId: z.string(),
    ct: z.string().nullable(),
    legacyText: z.string().nullable(),
    timestamp: time,
    read: z.boolean(),
  }),
  z.object({ type: z.literal('info'), id: z.string(), message: z.string(), timestamp: time, read: z.boolean() }),
  z.object({
    type: z.literal('admin'),
    id: z.string(),
    message: z.string(),
    imageUrl: z.string().nullable(),
    videoUrl: z.string().nullable(),
    timestamp: time,
    read: z.boolean(),
  }),
]);
export type NotificationItem = z.infer<typeof notificationItemSchema>;

/**
 * May I message this user? `open`: yes. `request`: they accept messages from contacts
 * only, so my first message goes to them as a contact request. `pending`: my request
 * (its sealed text and time) waits for them to accept.
 */
export const accessSchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('open') }),
  z.object({ state: z.literal('request') }),
  z.object({
    state: z.literal('pending'),
    msgId: z.string(),
    ct: z.string().nullable(),
    legacyText: z.string().nullable(),
    timestamp: time,
  }),
]);
export type Access = z.infer<typeof accessSchema>;
