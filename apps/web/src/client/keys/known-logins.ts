/**
 * The logins this browser has seen use end-to-end encryption (docs/threat-model.md,
 * "Downgrades"). An account from before encryption signs in once with its password itself
 * (prelogin answers `legacy`); a server that answered so for an account that has keys would
 * receive the password. So once a login has signed in here with keys, this browser never
 * sends a password for it again, whatever the server says. Kept across sign-outs (that is
 * the point), as SHA-256 digests of the login rather than the handles and addresses.
 */
import { handleKey } from '@app/protocol';

const KEY = 'parley:e2ee-logins';
const LABEL = 'parley/login/v1\n';
/** Enough for every account a family shares a browser with, and then some. */
const MAX = 200;

async function digest(login: string): Promise<string> {
  const bytes = new TextEncoder().encode(LABEL + handleKey(login.trim()));
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(hash, (b) => b.toString(16).padStart(2, '0')).join('');
}

function stored(): string[] {
  try {
    const list: unknown = JSON.parse(localStorage.getItem(KEY) ?? '[]');
    return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** Remembers that `logins` (a handle, an e-mail address) belong to an account with keys. */
export async function rememberEncrypted(...logins: string[]): Promise<void> {
  const add = await Promise.all(logins.filter((l) => l.trim()).map(digest));
  const next = [...new Set([...add, ...stored()])].slice(0, MAX);
  try {
    localStorage.setItem(KEY, JSON.stringify(next));
  } catch {
    // storage unavailable: this browser cannot remember, and the check below finds nothing
  }
}

/** Whether this browser has seen any of `logins` sign in with keys. */
export async function seenEncrypted(...logins: string[]): Promise<boolean> {
  const known = new Set(stored());
  if (known.size === 0) return false;
  for (const l of logins) if (l.trim() && known.has(await digest(l))) return true;
  return false;
}

export const DOWNGRADE_REFUSED =
  'This server asked for your password itself, but your account uses end-to-end encryption, so this browser did not send it. Contact the server’s operator.';
