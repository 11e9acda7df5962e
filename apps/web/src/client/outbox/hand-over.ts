/**
 * A sent text's way from the composer's draft to the outbox (client/drafts/drafts.ts
 * `sending`): the outbox sends a message only once the draft at rest no longer holds its
 * text, so a page reloaded in between never has it both sent and as a draft.
 */
import { logged } from '@/lib/log';

/**
 * Given a new message's id and a promise of it being stored (`safe`), resolves once the
 * composer's draft at rest no longer holds its text.
 */
export type HandOver = (msgId: string, safe: Promise<void>) => Promise<unknown>;

/** Longest a send waits for its hand-over (a stuck IndexedDB must not hold messages back). */
export const HAND_OVER_MAX_MS = 2000;

/** Waits for a hand-over, at most HAND_OVER_MAX_MS; a failed one is logged and waited for no more. */
export async function handedOver(h: Promise<unknown>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((r) => {
    timer = setTimeout(r, HAND_OVER_MAX_MS);
  });
  await Promise.race([h.catch(logged('outbox', 'hand a sent text over from its draft')), late]);
  clearTimeout(timer);
}
