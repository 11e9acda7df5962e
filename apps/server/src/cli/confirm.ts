/** How the admin commands ask before they change something (a terminal, --yes, or nothing changes). */
import type { AdminOutput } from './output.ts';

/** Whether the operator confirms (or --yes did); says why not when not. */
export async function confirmed(question: string, yes: boolean, out: AdminOutput): Promise<boolean> {
  if (yes) return true;
  if (!out.ask) {
    out.error('Nothing changed: run it in a terminal to confirm, or add --yes.');
    return false;
  }
  const answer = (await out.ask(question)).trim().toLowerCase();
  if (answer === 'y' || answer === 'yes') return true;
  out.log('Nothing changed.');
  return false;
}
