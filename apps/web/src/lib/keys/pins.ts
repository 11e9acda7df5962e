/**
 * Which of a peer's identities this browser trusts (design e2ee.md 2.7): at first sight,
 * every identity the server lists (trust on first use); after that, each new current one
 * (a password reset: the chat says "security code changed"), but never an "earlier" one
 * that shows up later, since a server inventing a past identity could otherwise sign chat
 * keys in the peer's name without any change showing.
 */
export function pinIdentities(
  listed: readonly string[],
  current: string,
  pins: readonly string[] | null,
): { trusted: Set<string>; save: string[] | null } {
  const trusted = new Set(pins ?? listed);
  const changed = !pins || !trusted.has(current);
  trusted.add(current);
  return { trusted, save: changed ? [...trusted] : null };
}
