/** The HTTP API shared by the web client and the server. */

/** The signed-in user's own view of their account. */
export interface Me {
  id: string;
  username: string;
  name: string;
  email: string;
  emailVerified: boolean;
  phone: string;
  age: number;
  profilePic: string | null;
  createdAt: number;
  verified: boolean;
  isAdmin: boolean;
}

export interface SessionResponse {
  user: Me | null;
}

export interface UserResponse {
  user: Me;
}

export interface PublicSettings {
  helpLink: string | null;
  /** The image-upload site the profile's Upload button opens. */
  uploadUrl: string;
}

export interface ApiErrorBody {
  error: ApiErrorCode;
  message: string;
  /** Field-level messages from validation, first one first. */
  issues?: { path: string; message: string }[];
  /** When a refused attempt may be tried again (ms), e.g. after too many wrong PINs. */
  retryAt?: number;
}

export type ApiErrorCode =
  | 'invalid_input'
  | 'unauthenticated'
  | 'forbidden'
  | 'blocked'
  | 'not_found'
  | 'username_taken'
  | 'email_taken'
  | 'invalid_credentials'
  | 'wrong_password'
  | 'reauth_required'
  | 'invalid_token'
  | 'rate_limited'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'bad_origin'
  | 'invalid_pin'
  | 'pin_locked'
  | 'no_pin'
  | 'internal';

export const API = {
  session: '/api/session',
  signUp: '/api/auth/signup',
  signIn: '/api/auth/signin',
  signOut: '/api/auth/signout',
  verifyEmail: '/api/auth/verify-email',
  resendVerification: '/api/auth/resend-verification',
  forgotPassword: '/api/auth/forgot-password',
  resetPassword: '/api/auth/reset-password',
  changeEmail: '/api/account/email',
  changePassword: '/api/account/password',
  deleteAccount: '/api/account',
  publicSettings: '/api/settings',
  profile: '/api/me/profile',
  privacy: '/api/me/privacy',
  pin: '/api/me/pin',
  verifyPin: '/api/me/pin/verify',
  adminStats: '/api/admin/stats',
  /** GET ?query&after: a page of users. PATCH /:id: verify/block flags. */
  adminUsers: '/api/admin/users',
  /** GET: sent broadcasts, newest first. POST: send. PUT /:id: edit (new timestamp). DELETE /:id. */
  adminBroadcasts: '/api/admin/notifications',
  /** PUT: the help link. */
  adminSettings: '/api/admin/settings',
  /** GET ?before: the audit log, newest first. */
  adminAudit: '/api/admin/audit',
} as const;

/** Where links in e-mails land in the web app. */
export const EMAIL_LINK_PATHS = {
  verify: '/verify-email',
  reset: '/reset-password',
} as const;
