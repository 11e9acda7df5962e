/**
 * `npm run admin -- broadcast …` and `help-link …`: the admin area's Notifications and
 * Settings tabs from the shell, through the same store calls (audited as done from the
 * shell) and, with REDIS_URL, the same frames to every open tab (live.ts). Exit codes:
 * 0 done, 2 usage.
 */
import { broadcastInputSchema, type GlobalEvent, helpLinkInputSchema } from '@app/protocol';
import { AdminStore } from '../storage/accounts/admin-store.ts';
import { broadcastItem } from '../storage/social/notification-store.ts';
import { optionValue, parseOptions } from './args.ts';
import { withDeployment } from './deployment.ts';
import { tellServers } from './live.ts';
import type { AdminOutput } from './output.ts';

export const BROADCAST_USAGE = `  broadcast <message> [--image URL] [--video URL]
                                            send every user a notification, as /admin does
                                            (an http(s) image; a YouTube or Vimeo link)
  help-link <url> | help-link --clear       set (http or https) or clear the Help link of
                                            every user's Settings`;

/** Without Redis: when open tabs see a broadcast or the help link (they reload both on every welcome). */
export const GLOBAL_WITHOUT_REDIS =
  'a running server is not told: open tabs show it when they next connect (a reload or a reconnection), new ones at once.';

function usage(message: string, out: AdminOutput): number {
  out.error(`${message}\n\n${BROADCAST_USAGE}`);
  return 2;
}

/** The frame /admin's routes send every socket (realtime.broadcast). */
const globalFrame = (event: GlobalEvent) => ({ t: 'global' as const, event });

export async function runBroadcast(args: string[], env: NodeJS.ProcessEnv, out: AdminOutput): Promise<number> {
  const p = parseOptions(args, { '--image': 'value', '--video': 'value' }, 'broadcast');
  if (typeof p === 'string') return usage(p, out);
  if (p.words.length !== 1) return usage('Give the message as one argument, in quotes.', out);
  const parsed = broadcastInputSchema.safeParse({
    message: p.words[0],
    imageUrl: optionValue(p, '--image') ?? undefined,
    videoUrl: optionValue(p, '--video') ?? undefined,
  });
  if (!parsed.success) return usage(parsed.error.issues[0]?.message ?? 'Invalid broadcast', out);
  const input = parsed.data;
  return withDeployment(env, out, async (db, config) => {
    const b = await new AdminStore(db.kysely).createBroadcast(null, input, Date.now());
    out.log(
      `Sent to every user's notifications (${b.message.length} characters${b.imageUrl ? ', an image' : ''}${b.videoUrl ? ', a video' : ''}).`,
    );
    await tellServers(config, out, { told: 'Every open tab shows it now', otherwise: GLOBAL_WITHOUT_REDIS }, (hub) =>
      hub.publishAll(globalFrame({ kind: 'notification', notification: broadcastItem(b) })),
    );
    return 0;
  });
}

export async function runHelpLink(args: string[], env: NodeJS.ProcessEnv, out: AdminOutput): Promise<number> {
  const p = parseOptions(args, { '--clear': 'flag' }, 'help-link');
  if (typeof p === 'string') return usage(p, out);
  const clear = p.options.has('--clear');
  const [given] = p.words;
  if (p.words.length > 1 || clear === (given !== undefined) || given?.trim() === '') {
    return usage('Give the link (http or https), or --clear.', out);
  }
  const parsed = helpLinkInputSchema.safeParse({ helpLink: given ?? null });
  if (!parsed.success) return usage(parsed.error.issues[0]?.message ?? 'Invalid help link', out);
  const link = parsed.data.helpLink;
  return withDeployment(env, out, async (db, config) => {
    if (!(await new AdminStore(db.kysely).setHelpLink(null, link, Date.now()))) {
      out.log(link === null ? 'There is no help link: nothing to clear.' : `The help link is ${link} already.`);
      return 0;
    }
    out.log(link === null ? "Help link cleared: Settings' Help shows 'Coming Soon'." : `Help link set to ${link}.`);
    await tellServers(config, out, { told: 'Every open tab follows it now', otherwise: GLOBAL_WITHOUT_REDIS }, (hub) =>
      hub.publishAll(globalFrame({ kind: 'settings', helpLink: link })),
    );
    return 0;
  });
}
