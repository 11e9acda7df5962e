import { chatIdOf, DELETED_ACCOUNT } from '@app/protocol';
import { useMemo, useState } from 'react';
import { Navigate, useLocation, useNavigate, useParams } from 'react-router';
import { isBlocked, setVerified } from '@/client/keys/peer-trust';
import { AttachDialog } from '@/components/attachments/attach-dialog';
import { PhotoViewer } from '@/components/attachments/photo-viewer';
import { ChatBody } from '@/components/chat/chat-body';
import { ChatComposer } from '@/components/chat/chat-composer';
import { ChatHeader } from '@/components/chat/chat-header';
import { ChatSearch } from '@/components/chat/chat-search';
import { ForwardDialog } from '@/components/chat/forward-dialog';
import { ReactionPicker } from '@/components/chat/reaction-picker';
import { quotedSender } from '@/components/chat/reply-quote';
import { SafetyNumberDialog } from '@/components/chat/safety-number-dialog';
import { usePane } from '@/components/layout/pane-context';
import { ScreenMain } from '@/components/layout/screen-frame';
import { MessageInfoDialog } from '@/components/message-info-dialog';
import { ActionMenu } from '@/components/ui/action-menu';
import { notifyError } from '@/components/ui/toaster';
import {
  useAccess,
  useChatClient,
  useChatSummary,
  useConversation,
  useMarkRead,
  usePresence,
  useTyping,
  useUser,
} from '@/hooks/chat-hooks';
import { PhotoViewerContext } from '@/hooks/use-chat-media';
import { useFileDrop } from '@/hooks/use-file-drop';
import { useFillViewport } from '@/hooks/use-fill-viewport';
import { useMessageActions } from '@/hooks/use-message-actions';
import { usePeerPaging } from '@/hooks/use-peer-paging';
import { usePeerTrust } from '@/hooks/use-peer-trust';
import { useAttachmentMaxBytes } from '@/hooks/use-public-settings';
import { focusLinkBackTo } from '@/hooks/use-route-focus';
import { useSession } from '@/hooks/use-session';
import { cn } from '@/lib/utils';

/** The conversation with the routed user, or with `peerId` when the desktop layout shows it beside another screen. */
export default function ChatPage(props: { peerId?: string }) {
  const params = useParams();
  const peerId = props.peerId ?? params.userId ?? '';
  const pane = usePane();
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
  const fill = useFillViewport(!pane);
  // A locked chat asks for the PIN on every visit, unless /locked just asked for it.
  const [gatePassed, setGatePassed] = useState(
    () => (location.state as { unlocked?: boolean } | null)?.unlocked === true,
  );
  const gated = view.locked || (summary?.locked === true && !gatePassed);
  // Nothing of a locked chat counts as read before the PIN.
  useMarkRead(peerId, view, !gated);
  const actions = useMessageActions(client, me?.id);
  const [sentCount, setSentCount] = useState(0);
  const [verifyOpen, setVerifyOpen] = useState(false);
  const [searchOpen, setSearchOpen] = useState(false);
  // A search result from the chat list opens the chat at its message: each time one is
  // chosen (a new history entry), also when this chat is already open beside the list.
  const [jump, setJump] = useState<{ msgId: string; peerId: string } | null>(null);
  const asked = (location.state as { jumpTo?: unknown } | null)?.jumpTo;
  const [jumpedFor, setJumpedFor] = useState<string | null>(null);
  if (typeof asked === 'string' && jumpedFor !== location.key) {
    setJumpedFor(location.key);
    setJump({ msgId: asked, peerId });
  }
  const trust = usePeerTrust(peer ? peerId : '');
  const keyChanges = useMemo(() => trust?.changes ?? [], [trust]);

  const handle = peer ? `@${peer.username}` : peer === null ? DELETED_ACCOUNT : '';
  const { infoId, setInfoId, setEditing, setReplying } = actions;
  const info = useMemo(() => (infoId ? (view.messages.find((m) => m.id === infoId) ?? null) : null), [infoId, view]);
  const paging = usePeerPaging(client, peerId);
  // Files picked, pasted or dropped on the conversation: shown for captions before they go.
  const [staged, setStaged] = useState<File[]>([]);
  const maxBytes = useAttachmentMaxBytes();
  // The photo shown large (chat's photo viewer), by its message.
  const [viewing, setViewing] = useState<string | null>(null);
  const drop = useFileDrop(setStaged, { off: gated, gone: peer === null });

  if (!me) return null;
  if (peerId === me.id) return <Navigate to="/home" replace />;

  return (
    <PhotoViewerContext.Provider value={setViewing}>
      <div
        ref={fill.ref}
        {...drop}
        style={pane ? undefined : fill.style}
        className={pane ? 'flex min-h-0 flex-1 flex-col' : 'flex flex-col bg-muted md:py-6'}
      >
        <div
          className={cn(
            'flex min-h-0 w-full flex-1 flex-col overflow-hidden bg-background',
            !pane && 'mx-auto max-w-2xl md:rounded-2xl md:border md:border-border md:shadow-sm',
          )}
        >
          <ChatHeader
            peer={peer}
            handle={handle}
            presence={presence}
            typing={typing}
            trust={trust}
            onBack={() => {
              focusLinkBackTo(`/chat/${peerId}`);
              navigate('/home');
            }}
            onVerify={() => setVerifyOpen(true)}
            onSearch={gated ? undefined : () => setSearchOpen(true)}
          />
          {searchOpen && !gated ? (
            <ChatSearch
              chatId={chatIdOf(me.id, peerId)}
              me={me.id}
              peerId={peerId}
              peerHandle={handle}
              onJump={(msgId) => setJump({ msgId, peerId })}
              onClose={() => {
                setSearchOpen(false);
                document.querySelector<HTMLElement>('[data-search-button]')?.focus();
              }}
            />
          ) : null}
          {/* The header stays the page's banner; the conversation and the composer are its main part. */}
          <ScreenMain className="flex min-h-0 flex-1 flex-col">
            <div className="flex min-h-0 flex-1 flex-col bg-muted/60">
              <ChatBody
                gated={gated}
                onUnlocked={() => setGatePassed(true)}
                view={view}
                peerId={peerId}
                me={me.id}
                handle={handle}
                access={access}
                typing={typing}
                sentCount={sentCount}
                keyChanges={keyChanges}
                onVerify={() => setVerifyOpen(true)}
                paging={paging}
                onMenu={actions.onMenu}
                onReply={actions.reply}
                onReact={actions.onReact}
                jump={jump?.peerId === peerId ? jump : null}
              />
            </div>
            {gated ? null : (
              <ChatComposer
                client={client}
                peerId={peerId}
                peerGone={peer === null}
                handle={handle}
                access={access}
                editing={actions.editing}
                replying={actions.replying}
                replySender={
                  actions.replying
                    ? quotedSender(actions.replying.senderId, { me: me.id, peerId, peerHandle: handle })
                    : ''
                }
                onReplyDone={() => setReplying(null)}
                codeChanged={isBlocked(trust)}
                onVerify={() => setVerifyOpen(true)}
                onAcceptCode={() => client && void setVerified(client.keys, client.userId, peerId, null)}
                onEdit={setEditing}
                onEditDone={() => setEditing(null)}
                onSent={() => setSentCount((n) => n + 1)}
                onFiles={setStaged}
                onVoice={(file) => {
                  if (!client) return;
                  void client.sendFile(peerId, file, '', maxBytes).then((r) => {
                    if ('problem' in r) notifyError('Not sent', r.problem);
                    else setSentCount((n) => n + 1);
                  });
                }}
              />
            )}
          </ScreenMain>
        </div>

        <ActionMenu
          anchor={actions.menu?.anchor ?? null}
          actions={actions.actions}
          label="Message options"
          onClose={actions.closeMenu}
        />
        <MessageInfoDialog message={info} onClose={() => setInfoId(null)} />
        <AttachDialog
          peerId={peerId}
          files={staged}
          onClose={() => setStaged([])}
          onSent={() => {
            setStaged([]);
            setSentCount((n) => n + 1);
          }}
        />
        <ForwardDialog message={actions.forwarding} onClose={() => actions.setForwarding(null)} />
        <ReactionPicker target={actions.reacting} onClose={actions.closeReacting} />
        {peer ? (
          <SafetyNumberDialog
            peerId={peerId}
            handle={handle}
            trust={trust}
            open={verifyOpen}
            onOpenChange={setVerifyOpen}
          />
        ) : null}
        {/* Mounted only while a photo is shown: it reads the chat's media on every change. */}
        {viewing ? (
          <PhotoViewer
            peerId={peerId}
            peerHandle={handle}
            msgId={viewing}
            onMove={setViewing}
            onClose={() => setViewing(null)}
          />
        ) : null}
      </div>
    </PhotoViewerContext.Provider>
  );
}
