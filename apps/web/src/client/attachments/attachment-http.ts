/**
 * Where a ChatClient uploads and downloads attachments: the app's own origin in the browser
 * (the session cookie goes by itself), a test server with the cookie in a header in Node.
 */
export interface AttachmentHttp {
  /** Prefixed to the API's paths ('' in the browser: same origin). */
  base: string;
  /** Sent with every request (none in the browser). */
  headers: Record<string, string>;
}

export const SAME_ORIGIN: AttachmentHttp = { base: '', headers: {} };
