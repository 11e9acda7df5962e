/**
 * A message's text in parts: plain text, and the web addresses in it (http and https
 * only; any other scheme, `javascript:` above all, stays text). The bubble renders the
 * parts as text and links, never as HTML.
 */

export type TextPart = { kind: 'text'; text: string } | { kind: 'link'; text: string; href: string };

/** 'http://' or 'https://' and what follows up to a space or a character no address holds unescaped. */
const CANDIDATE = /\bhttps?:\/\/[^\s<>"`]+/gi;
/** Punctuation that ends a sentence rather than the address ('see https://x.org.'). */
const TRAILING = /[.,;:!?'*_~]+$/;
const PAIRS: Record<string, string> = { ')': '(', ']': '[', '}': '{' };

/** Drops what follows the address: sentence punctuation, and closing brackets it did not open. */
function trimAddress(s: string): string {
  let out = s;
  for (;;) {
    const before = out;
    out = out.replace(TRAILING, '');
    const last = out.at(-1);
    const open = last ? PAIRS[last] : undefined;
    if (last && open) {
      const opened = out.split(open).length - 1;
      const closed = out.split(last).length - 1;
      if (closed > opened) out = out.slice(0, -1);
    }
    if (out === before) return out;
  }
}

/** The link an address makes, or null when it is not an http(s) address with a host. */
export function safeHref(address: string): string | null {
  try {
    const url = new URL(address);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') return null;
    return url.href;
  } catch {
    return null;
  }
}

/** `text` in order as text and links (adjacent text joined; '' gives no parts). */
export function linkParts(text: string): TextPart[] {
  const parts: TextPart[] = [];
  const pushText = (t: string) => {
    if (t === '') return;
    const prev = parts.at(-1);
    if (prev?.kind === 'text') prev.text += t;
    else parts.push({ kind: 'text', text: t });
  };
  let from = 0;
  for (const match of text.matchAll(CANDIDATE)) {
    const start = match.index;
    const address = trimAddress(match[0]);
    const href = safeHref(address);
    if (href === null) continue;
    pushText(text.slice(from, start));
    parts.push({ kind: 'link', text: address, href });
    from = start + address.length;
  }
  pushText(text.slice(from));
  return parts;
}
