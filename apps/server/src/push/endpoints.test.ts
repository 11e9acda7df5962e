import { describe, expect, it } from 'vitest';
import { DEFAULT_PUSH_ENDPOINTS, endpointAllowed } from './endpoints.ts';

describe('push endpoints', () => {
  it("takes the browsers' push services", () => {
    for (const e of [
      'https://fcm.googleapis.com/fcm/send/abc:def',
      'https://updates.push.services.mozilla.com/wpush/v2/gAAAA',
      'https://web.push.apple.com/QG9',
      'https://wns2-bn3p.notify.windows.com/w/?token=x',
    ]) {
      expect(endpointAllowed(e, DEFAULT_PUSH_ENDPOINTS)).toBe(true);
    }
  });

  it('refuses anything else: other hosts, look-alikes, http, other ports, credentials, internal addresses', () => {
    for (const e of [
      'http://fcm.googleapis.com/fcm/send/x',
      'https://fcm.googleapis.com.evil.example/x',
      'https://evilfcm.googleapis.com/x',
      'https://push.apple.com.evil.example/x',
      'https://fcm.googleapis.com:8443/x',
      'https://user:pw@fcm.googleapis.com/x',
      'http://127.0.0.1:6379/',
      'http://169.254.169.254/latest/meta-data',
      'javascript:alert(1)',
      'not a url',
    ]) {
      expect(endpointAllowed(e, DEFAULT_PUSH_ENDPOINTS)).toBe(false);
    }
  });

  it('takes an operator-added origin and path, and only under it', () => {
    const allowed = ['http://127.0.0.1:9999/push/'];
    expect(endpointAllowed('http://127.0.0.1:9999/push/abc', allowed)).toBe(true);
    expect(endpointAllowed('http://127.0.0.1:9999/admin', allowed)).toBe(false);
    expect(endpointAllowed('http://127.0.0.1:9998/push/abc', allowed)).toBe(false);
  });
});
