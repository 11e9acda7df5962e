/**
 * Which push endpoints the server will POST to. A subscription comes from a client, so
 * its endpoint is a URL a hostile client chooses: without a list, the server could be
 * made to send requests into the operator's own network. Browsers' push services are
 * few and known; an operator adds their own (a self-hosted push service, a test
 * endpoint) with PUSH_ENDPOINTS.
 */

/** The push services of Chrome/Edge (FCM), Firefox (autopush), Safari and legacy Edge. */
export const DEFAULT_PUSH_ENDPOINTS = [
  'https://fcm.googleapis.com/',
  'https://updates.push.services.mozilla.com/',
  'https://*.push.apple.com/',
  'https://*.notify.windows.com/',
] as const;

/**
 * Whether `endpoint` is under one of `allowed`: the same scheme, the same host (or a
 * subdomain, for a `*.` pattern), the same port, and a path under the pattern's.
 */
export function endpointAllowed(endpoint: string, allowed: readonly string[]): boolean {
  if (!URL.canParse(endpoint)) return false;
  const url = new URL(endpoint);
  if (url.username || url.password) return false;
  return allowed.some((pattern) => {
    const wildcard = pattern.includes('://*.');
    const p = new URL(pattern.replace('://*.', '://'));
    if (p.protocol !== url.protocol || p.port !== url.port) return false;
    const hostOk = wildcard ? url.hostname.endsWith(`.${p.hostname}`) : url.hostname === p.hostname;
    return hostOk && url.pathname.startsWith(p.pathname);
  });
}
