/**
 * What the browser believes on the server's word alone (docs/threat-model.md): a message
 * with no ciphertext, which the server could have made up. A text in the clear is
 * believable only as a message from before end-to-end encryption, and a deletion without
 * its sender's tombstone only as one made before tombstones were sealed. Each rule is
 * checked against what this account's sealed keys say of its start (BundleContents
 * `started`), which the server cannot change.
 */
import type { AccountStart } from '@app/e2ee';
import { publicSettings } from '@/lib/public-settings';

/**
 * Whether a message in the clear sent at `at` can be from before end-to-end encryption:
 * never for an account made with keys; for an upgraded one, only before it got them. A
 * bundle from before `started` was kept (until its next sign-in fills it in) falls back on
 * the deployment's setting.
 */
export async function clearAllowed(started: AccountStart | null, at: number): Promise<boolean> {
  if (started) return started.legacy && at < started.at;
  const { e2eeSince } = await publicSettings();
  return e2eeSince !== null && at <= e2eeSince;
}

/**
 * Whether a message sent at `at` can have been deleted without a tombstone: only before
 * this account's browsers sealed deletions (`started.tombstones`: when its bundle first
 * said so; for an account made since, its start). A bundle that does not say yet believes
 * it, as browsers did before (until its next sign-in).
 */
export function bareDeletionAllowed(started: AccountStart | null, at: number): boolean {
  if (!started || started.tombstones === undefined) return true;
  return at < started.tombstones;
}
