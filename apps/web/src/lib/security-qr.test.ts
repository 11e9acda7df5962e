import { describe, expect, it } from 'vitest';
import { digitsOfQr, qrMatches, securityQrText } from './security-qr';

const groups = Array.from({ length: 12 }, (_, i) => String(10000 + i * 7919).slice(0, 5));

describe('the security-code QR text', () => {
  it('carries the 60 digits behind a versioned label, and matches only the same digits', () => {
    const text = securityQrText(groups);
    expect(text).toMatch(/^PARLEY-SC1:\d{60}$/);
    expect(digitsOfQr(text)).toBe(groups.join(''));
    expect(qrMatches(text, groups)).toBe('match');
    const other = [...groups.slice(0, 11), '99999'];
    expect(qrMatches(text, other)).toBe('mismatch');
    expect(qrMatches('https://example.com', groups)).toBe('not-a-code');
    expect(qrMatches('PARLEY-SC1:123', groups)).toBe('not-a-code');
  });
});
