/** Product identity and the business constants of spec section 9. */
export const APP_NAME = 'Parley';
export const APP_MAKER = 'Parley Labs';
export const APP_VERSION = '1.0.0';
export const COPYRIGHT_YEAR = 2024;

export const SPLASH_DELAY_MS = 2000;
export const AGE_MIN = 13;
export const AGE_MAX = 120;
export const NAME_MIN = 2;
export const NAME_MAX = 50;
export const PHONE_MIN = 10;
export const PHONE_MAX = 15;
export const USERNAME_MIN = 3;
export const USERNAME_MAX = 20;
export const PASSWORD_MIN = 6;
/** Not in the spec; argon2 accepts more, but nobody types this much and it bounds hashing cost. */
export const PASSWORD_MAX = 128;
/** RFC 5321 path limit. */
export const EMAIL_MAX = 254;
export const URL_MAX = 2048;
export const PIN_LENGTH = 6;
export const TYPING_CLEAR_MS = 1000;
export const CLOCK_TIME_CUTOFF_MS = 24 * 60 * 60 * 1000;
export const BUBBLE_MAX_WIDTH = '70%';
export const ADMIN_USERS_SCROLL_PX = 600;
export const ADMIN_NOTIFICATIONS_SCROLL_PX = 400;
export const TYPING_DOT_DELAYS_MS = [0, 150, 300] as const;

export const PRIVACY_DEFAULTS = {
  readReceipts: true,
  lastSeen: true,
  requireRequest: false,
} as const;

/** Bumped whenever a wire schema changes (a test hashes the schemas). */
export const PROTOCOL_VERSION = 17;
