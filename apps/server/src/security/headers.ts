import type { FastifyInstance } from 'fastify';

/**
 * Security headers on every response. The CSP allows only our own scripts; styles
 * may be inline (toasts inject theirs); images may come from any http(s) URL (profile
 * pictures are links); frames only from the official YouTube/Vimeo embed hosts.
 */
export function buildCsp(): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https: http:",
    "font-src 'self' data:",
    "connect-src 'self'",
    'frame-src https://www.youtube-nocookie.com https://player.vimeo.com',
    // blob:: voice messages play from the file opened in the page.
    "media-src 'self' blob: https:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "manifest-src 'self'",
    "worker-src 'self'",
  ].join('; ');
}

export function registerSecurityHeaders(app: FastifyInstance, opts: { https: boolean }): void {
  const csp = buildCsp();
  app.addHook('onSend', async (_req, reply, payload) => {
    // A route's own, stricter policy stays (an attachment's: nothing on it may run or render).
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', csp);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('x-frame-options', 'DENY');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('cross-origin-opener-policy', 'same-origin');
    reply.header('cross-origin-resource-policy', 'same-origin');
    // The camera and microphone for this origin only: "Scan code" reads the other screen's security code, and voice messages record.
    reply.header('permissions-policy', 'camera=(self), microphone=(self), geolocation=(), payment=(), usb=()');
    if (opts.https) reply.header('strict-transport-security', 'max-age=31536000; includeSubDomains');
    return payload;
  });
}
