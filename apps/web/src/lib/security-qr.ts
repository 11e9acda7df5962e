/**
 * What a security-code QR code says (as Signal's does): a label and version, then the chat's
 * 60-digit safety number. Both people's screens show the same digits, so scanning the other
 * screen's code compares the two numbers without reading them out.
 */
const PREFIX = 'PARLEY-SC1:';

export function securityQrText(groups: readonly string[]): string {
  return PREFIX + groups.join('');
}

/** The digits a scanned code holds, or null when it is not a Parley security code. */
export function digitsOfQr(text: string): string | null {
  if (!text.startsWith(PREFIX)) return null;
  const digits = text.slice(PREFIX.length);
  return /^\d{60}$/.test(digits) ? digits : null;
}

/** Whether a scanned code holds these groups' digits. */
export function qrMatches(text: string, groups: readonly string[]): 'match' | 'mismatch' | 'not-a-code' {
  const digits = digitsOfQr(text);
  if (digits === null) return 'not-a-code';
  return digits === groups.join('') ? 'match' : 'mismatch';
}
