import { DELETED_ACCOUNT } from '@app/protocol';
import { ArrowLeft, Copy, Info, MailQuestion, Pencil, RotateCw, Trash2 } from 'lucide-react';
import { useCallback, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { Navigate, useLocation, useNavigate, useParams } from 'react-router';
import { ConnectionBar } from '@/components/connection-bar';
import { MessageInfoDialog } from '@/components/message-info-dialog';
import { MessageInput } from '@/components/message-input';
import { MessageList } from '@/components/message-list';
import { PinGate } from '@/components/pin-gate';
import { Spinner } from '@/components/spinner';
import { ActionMenu, type MenuAction, type MenuAnchor } from '@/components/ui/action-menu';
import { Button } from '@/components/ui/button';
import { notify, notifyError } from '@/components/ui/toaster';
import { UserAvatar } from '@/components/user-avatar';
import { VerifiedBadge } from '@/components/verified-badge';
import {
  useAccess,
  useChatClient,
  useChatSummary,
  useConversation,
  useMarkRead,
  usePresence,
  useTyping,
  useUser,
} from '@/lib/chat-hooks';
import type { UiMessage } from '@/lib/conversation';
import { formatListTime, presenceText } from '@/lib/format-time';
import { useSession } from '@/lib/session';

/** The screen fills the viewport below whatever sits above it (the e-mail banner). */
function useFillViewport() {
  const ref = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  useLayoutEffect(() => {
    const measure = () => {
      const el = ref.current;
      if (el) setTop(Math.max(0, Math.round(el.getBoundingClientRect().top + window.scrollY)));
    };
    measure();
    window.addEventListener('resize', measure);
    return () => window.removeEventListener('resize', measure);
  }, []);
  return { ref, style: { height: `calc(100dvh - ${top}px)`, flex: 'none' } as const };
}

/** In place of the composer while the user's message request waits for the peer. */
function RequestPending({ handle, message, timestamp }: { handle: string; message: string; timestamp: number }) {
  return (
    <section aria-label="Message request" className="border-t border-border bg-background p-4">
      <div className="rounded-xl border border-border bg-secondary/50 p-3 text-sm">
        <p className="flex items-center gap-2 font-semibold">
          <MailQuestion className="size-4 text-primary" aria-hidden />
          Request pending
          <span className="ml-auto text-xs font-normal text-muted-foreground">
            {formatListTime(timestamp, Date.now())}
          </span>
        </p>
        <p className="mt-1 line-clamp-3 break-words text-muted-foreground">“{message}”</p>
        <p className="mt-2 text-muted-foreground">You can message {handle || 'them'} once they accept your request.</p>
      </div>
    </section>
  );
}

async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('Copying is not available here');
}

export default function ChatPage() {
  const { userId: peerId = '' } = useParams();
  const { user: me } = useSession();
  const navigate = useNavigate();
  const client = useChatClient();
  const view = useConversation(peerId);
  const peer = useUser(peerId);
  const presence = usePresence(peer ? peerId : null);
  const typing = useTyping(peerId);
  const summary = useChatSummary(peerId);
  const access = useAccess(peerId);
  const location = useLocation();
  const fill = useFillViewport();
  // A locked chat asks for the PIN on every visit, unless /locked just asked for it.
  const [gatePassed, setGatePassed] = useState(
    () => (location.state as { unlocked?: boolean } | null)?.unlocked === true,
  );
  const gated = view.locked || (summary?.locked === true && !gatePassed);
  // Nothing of a locked chat counts as read before the PIN.
  useMarkRead(peerId, view, !gated);

  const [menu, setMenu] = useState<{ message: UiMessage; anchor: MenuAnchor } | null>(null);
  const [infoId, setInfoId] = useState<string | null>(null);
  const [editing, setEditing] = useState<UiMessage | null>(null);
  const [sentCount, setSentCount] = useState(0);

  const handle = peer ? `@${peer.username}` : peer === null ? DELETED_ACCOUNT : '';
  const info = useMemo(() => (infoId ? (view.messages.find((m) => m.id === infoId) ?? null) : null), [infoId, view]);
  const onMenu = useCallback((message: UiMessage, anchor: MenuAnchor) => setMenu({ message, anchor }), []);
  const closeMenu = useCallback(() => setMenu(null), []);
  const onLoadOlder = useCallback(() => void client?.loadOlder(peerId), [client, peerId]);

  const actions = useMemo<MenuAction[]>(() => {
    if (!menu) return [];
    const m = menu.message;
    const list: MenuAction[] = [
      {
        label: 'Copy',
        icon: Copy,
        onSelect: () =>
          copyText(m.text).then(
            () => notify('Copied'),
            () => notifyError('Copy Failed', 'Your browser did not allow copying'),
          ),
      },
      { label: 'Info', icon: Info, onSelect: () => setInfoId(m.id) },
    ];
    if (me && m.senderId === me.id && m.failed !== undefined) {
      // Not sent: it never reached the server, so Retry sends it again and Delete just drops it.
      list.push(
        { label: 'Retry', icon: RotateCw, onSelect: () => client?.retryMessage(m.id) },
        {
          label: 'Delete',
          icon: Trash2,
          destructive: true,
          onSelect: () => client?.discardMessage(m.id),
        },
      );
    } else if (me && m.senderId === me.id && !m.pending) {
      list.push(
        { label: 'Edit', icon: Pencil, onSelect: () => setEditing(m) },
        {
          label: 'Delete',
          icon: Trash2,
          destructive: true,
          onSelect: () => {
            if (editing?.id === m.id) setEditing(null);
            client?.deleteMessage(m).then(
              () => notify('Message Deleted', 'The message has been removed'),
              (e: unknown) => notifyError('Delete Failed', e instanceof Error ? e.message : undefined),
            );
          },
        },
      );
    }
    return list;
  }, [menu, me, client, editing]);

  if (!me) return null;
  if (peerId === me.id) return <Navigate to="/home" replace />;

  return (
    <div ref={fill.ref} style={fill.style} className="flex flex-col bg-muted md:py-6">
      <div className="mx-auto flex min-h-0 w-full max-w-2xl flex-1 flex-col overflow-hidden bg-background md:rounded-2xl md:border md:border-border md:shadow-sm">
        <header className="border-b border-border bg-background">
          <div className="flex h-14 items-center gap-2 px-2">
            <Button variant="ghost" size="icon" aria-label="Back" onClick={() => navigate('/home')}>
              <ArrowLeft />
            </Button>
            <UserAvatar
              name={peer?.username ?? (peer === null ? DELETED_ACCOUNT : '')}
              src={peer?.profilePic}
              size="sm"
            />
            <div className="min-w-0 flex-1">
              <h1 className="flex items-center gap-1.5 font-semibold leading-tight">
                <span className="truncate">{handle}</span>
                {peer?.verified ? <VerifiedBadge /> : null}
              </h1>
              {peer ? (
                <p className={presence?.online ? 'text-xs text-success' : 'text-xs text-muted-foreground'}>
                  {typing ? 'typing…' : presence ? presenceText(presence) : '\u00a0'}
                </p>
              ) : null}
            </div>
          </div>
          <ConnectionBar />
        </header>

        <div className="flex min-h-0 flex-1 flex-col bg-muted/60">
          {gated ? (
            <div className="flex flex-1 flex-col justify-center overflow-y-auto bg-background px-4">
              <PinGate title="This chat is locked. Enter PIN" onUnlocked={() => setGatePassed(true)} />
            </div>
          ) : view.status === 'ready' || view.messages.length > 0 ? (
            <MessageList
              key={peerId}
              view={view}
              me={me.id}
              peerHandle={handle || 'them'}
              emptyText={
                access?.state === 'pending' ? `Waiting for ${handle || 'them'} to accept your request` : undefined
              }
              typing={typing}
              sentCount={sentCount}
              onLoadOlder={onLoadOlder}
              onMenu={onMenu}
            />
          ) : view.status === 'error' ? (
            <div className="flex flex-1 flex-col items-center justify-center gap-3 p-6 text-center">
              <p className="text-sm text-muted-foreground">{view.error ?? 'Could not load the messages.'}</p>
            </div>
          ) : (
            <div className="flex flex-1 items-center justify-center">
              <Spinner />
            </div>
          )}
        </div>

        {gated ? null : peer === null ? (
          <p className="border-t border-border bg-background p-4 text-center text-sm text-muted-foreground">
            This account no longer exists. You cannot reply to this conversation.
          </p>
        ) : access?.state === 'pending' ? (
          <RequestPending handle={handle} message={access.message} timestamp={access.timestamp} />
        ) : (
          <>
            {access?.state === 'request' ? (
              <p className="flex items-start gap-2 border-t border-border bg-secondary/60 px-4 py-2.5 text-sm text-secondary-foreground">
                <MailQuestion className="mt-0.5 size-4 shrink-0 text-primary" aria-hidden />
                <span>
                  {handle} accepts messages from contacts only. Your first message will be sent as a message request.
                </span>
              </p>
            ) : null}
            <MessageInput
              key={peerId}
              client={client}
              peerId={peerId}
              editing={editing}
              onEditDone={() => setEditing(null)}
              onSent={() => setSentCount((n) => n + 1)}
            />
          </>
        )}
      </div>

      <ActionMenu anchor={menu?.anchor ?? null} actions={actions} label="Message options" onClose={closeMenu} />
      <MessageInfoDialog message={info} onClose={() => setInfoId(null)} />
    </div>
  );
}
