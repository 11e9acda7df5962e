import { type ChatSummary, isMuted, MUTED_ALWAYS, type Presence, type PublicUser } from '@app/protocol';
import * as DialogPrimitive from '@radix-ui/react-dialog';
import { Bell, BellOff, ChevronRight, type LucideIcon, ShieldCheck, ShieldQuestion, X } from 'lucide-react';
import type * as React from 'react';
import { useState } from 'react';
import { isVerified, type PeerTrust } from '@/client/keys/peer-trust';
import { Button } from '@/components/ui/button';
import { UserAvatar } from '@/components/user-avatar';
import { VerifiedBadge } from '@/components/verified-badge';
import { useChatSummary } from '@/hooks/chat-hooks';
import { FLAG_ACTIONS, flagActionsFor, useChatFlags } from '@/hooks/use-chat-flags';
import { formatDayAndTime, presenceText } from '@/lib/format-time';
import { cn } from '@/lib/utils';
import { ChatMediaSection } from '../attachments/chat-media-section';
import { MuteDialog } from './mute-dialog';

const ROW =
  'flex min-h-12 w-full cursor-pointer items-center gap-3 px-4 py-3 text-left transition-colors hover:bg-accent focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-ring disabled:cursor-default disabled:opacity-50';

function ActionRow(props: {
  icon: LucideIcon;
  label: string;
  detail?: string;
  tint: string;
  disabled?: boolean;
  onClick(): void;
  end?: React.ReactNode;
}) {
  const Icon = props.icon;
  return (
    <li>
      <button type="button" className={ROW} disabled={props.disabled} onClick={props.onClick}>
        <span className={cn('flex size-9 shrink-0 items-center justify-center rounded-full', props.tint)}>
          <Icon className="size-[18px]" aria-hidden />
        </span>
        <span className="flex min-w-0 flex-1 flex-col">
          <span className="font-medium">{props.label}</span>
          {props.detail ? <span className="text-sm text-muted-foreground">{props.detail}</span> : null}
        </span>
        {props.end}
      </button>
    </li>
  );
}

/** The chat's notifications: Mute (asking for how long) or Unmute, and until when it is muted. */
function MuteRow({
  chat,
  handle,
  flags,
}: {
  chat: ChatSummary;
  handle: string;
  flags: ReturnType<typeof useChatFlags>;
}) {
  const [asking, setAsking] = useState(false);
  const now = Date.now();
  const muted = isMuted(chat, now);
  const until = chat.mutedUntil ?? 0;
  return (
    <>
      <ActionRow
        icon={muted ? BellOff : Bell}
        tint="bg-secondary text-primary"
        label={muted ? 'Unmute notifications' : 'Mute notifications'}
        detail={muted ? (until >= MUTED_ALWAYS ? 'Muted always' : `Muted until ${formatDayAndTime(until, now)}`) : 'On'}
        disabled={flags.busy}
        onClick={() => (muted ? void flags.run('unmute') : setAsking(true))}
      />
      <MuteDialog handle={handle} open={asking} onOpenChange={setAsking} onMute={(a) => void flags.run(a)} />
    </>
  );
}

/**
 * "Contact info", opened from the chat header's name: the peer's picture, name, handle,
 * verified badge and presence, the security code (the header's "Compare security code"
 * dialog, `onVerify`), its notifications (Mute for a while or always, Unmute) and the
 * chat's Archive/Unarchive and Lock/Unlock, as the chat list
 * offers them (use-chat-flags.ts). A full-screen sheet on a phone, a side sheet from
 * 640 px. Escape or Close closes it, and focus goes back to `returnFocus`.
 */
export function ContactPanel({
  peer,
  presence,
  trust,
  open,
  onOpenChange,
  onVerify,
  returnFocus,
}: {
  peer: PublicUser;
  presence: Presence | undefined;
  trust: PeerTrust | null;
  open: boolean;
  onOpenChange(open: boolean): void;
  onVerify(): void;
  returnFocus: React.RefObject<HTMLElement | null>;
}) {
  const summary = useChatSummary(peer.id);
  const flags = useChatFlags(peer.id, () => onOpenChange(false));
  const handle = `@${peer.username}`;
  const verified = isVerified(trust);
  // A chat with no message yet has no summary to archive or lock.
  const actions = summary ? flagActionsFor(summary) : [];

  return (
    <DialogPrimitive.Root open={open} onOpenChange={onOpenChange}>
      <DialogPrimitive.Portal>
        <DialogPrimitive.Overlay className="fixed inset-0 z-50 bg-black/40 max-sm:hidden dark:bg-black/60" />
        <DialogPrimitive.Content
          aria-describedby={undefined}
          onCloseAutoFocus={(e) => {
            const el = returnFocus.current;
            if (el?.isConnected) {
              e.preventDefault();
              el.focus();
            }
          }}
          className="fixed inset-0 z-50 flex flex-col overflow-y-auto bg-background shadow-xl outline-none sm:left-auto sm:w-96 sm:border-l sm:border-border"
        >
          <div className="sticky top-0 z-10 flex h-14 shrink-0 items-center gap-2 border-b border-border bg-background px-2">
            <DialogPrimitive.Close asChild>
              <Button variant="ghost" size="icon" aria-label="Close">
                <X />
              </Button>
            </DialogPrimitive.Close>
            <DialogPrimitive.Title className="font-semibold">Contact info</DialogPrimitive.Title>
          </div>

          <section aria-label="Profile" className="flex flex-col items-center gap-1 px-6 pb-6 pt-8 text-center">
            <UserAvatar name={peer.username} src={peer.profilePic} size="xl" className="mb-3" />
            <p className="flex max-w-full items-center gap-1.5 text-xl font-semibold">
              <span className="truncate">{peer.name || handle}</span>
              {peer.verified ? <VerifiedBadge className="[&_svg]:size-5" /> : null}
            </p>
            <p className="max-w-full truncate text-muted-foreground">{handle}</p>
            <p
              data-testid="contact-presence"
              className={cn('text-sm', presence?.online ? 'text-success' : 'text-muted-foreground')}
            >
              {presence ? presenceText(presence) : '\u00a0'}
            </p>
          </section>

          <div className="flex flex-1 flex-col gap-4 bg-muted/60 px-3 py-4 sm:px-4">
            <ul className="divide-y divide-border overflow-hidden rounded-2xl border border-border bg-background">
              <ActionRow
                icon={verified ? ShieldCheck : ShieldQuestion}
                tint={verified ? 'bg-success/15 text-success' : 'bg-secondary text-primary'}
                label="Compare security code"
                detail={
                  verified ? 'End-to-end encrypted · Code confirmed' : 'End-to-end encrypted · Code not confirmed'
                }
                onClick={onVerify}
                end={<ChevronRight className="size-5 shrink-0 text-muted-foreground" aria-hidden />}
              />
            </ul>
            <ChatMediaSection peerId={peer.id} peerHandle={handle} />
            {summary && !summary.locked ? (
              <ul
                aria-label="Notifications"
                className="divide-y divide-border overflow-hidden rounded-2xl border border-border bg-background"
              >
                <MuteRow chat={summary} handle={handle} flags={flags} />
              </ul>
            ) : null}
            {actions.length > 0 ? (
              <ul
                aria-label="Chat actions"
                className="divide-y divide-border overflow-hidden rounded-2xl border border-border bg-background"
              >
                {actions.map((a) => (
                  <ActionRow
                    key={a}
                    icon={FLAG_ACTIONS[a].icon}
                    tint="bg-secondary text-primary"
                    label={`${FLAG_ACTIONS[a].label} chat`}
                    disabled={flags.busy}
                    onClick={() => void flags.run(a)}
                  />
                ))}
              </ul>
            ) : null}
          </div>
        </DialogPrimitive.Content>
      </DialogPrimitive.Portal>
    </DialogPrimitive.Root>
  );
}
