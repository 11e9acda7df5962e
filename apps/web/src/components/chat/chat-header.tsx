import type { Presence, PublicUser } from '@app/protocol';
import { DELETED_ACCOUNT } from '@app/protocol';
import { ArrowLeft, Search, ShieldCheck } from 'lucide-react';
import { useRef, useState } from 'react';
import type { PeerTrust } from '@/client/keys/peer-trust';
import { ConnectionBar } from '@/components/connection-bar';
import { usePaneHeader } from '@/components/layout/screen-frame';
import { Button } from '@/components/ui/button';
import { UserAvatar } from '@/components/user-avatar';
import { VerifiedBadge } from '@/components/verified-badge';
import { presenceText } from '@/lib/format-time';
import { ContactPanel } from './contact-panel';

/**
 * The chat's header: back, the peer (deleted, or loading: undefined), presence or typing.
 * The peer's name is a button over the picture, the name and the presence line that
 * opens the contact panel.
 */
export function ChatHeader(props: {
  peer: PublicUser | null | undefined;
  handle: string;
  presence: Presence | undefined;
  typing: boolean;
  /** The peer's identities and verified mark, for the contact panel. */
  trust?: PeerTrust | null;
  onBack(): void;
  /** Opens "Compare security code". */
  onVerify(): void;
  /** Opens "Search in chat" (none: no button). */
  onSearch?: () => void;
}) {
  const { peer, handle, presence, typing } = props;
  const [panelOpen, setPanelOpen] = useState(false);
  const nameRef = useRef<HTMLButtonElement>(null);
  const paneHeader = usePaneHeader();
  return (
    <header role={paneHeader.role} className="border-b border-border bg-background">
      <div className="flex h-14 items-center gap-2 px-2 py-1">
        {/* Beside another screen (the desktop layout's settings, contacts…) that screen has the way back. */}
        {paneHeader.role === 'none' ? (
          <span className="w-1" />
        ) : (
          <Button variant="ghost" size="icon" aria-label="Back" onClick={props.onBack}>
            <ArrowLeft />
          </Button>
        )}
        {/* The name button covers the picture, the name and the presence line (its target on a touch screen is 44 px tall). */}
        <div className="relative flex min-w-0 flex-1 items-center gap-2 self-stretch rounded-lg pr-1 transition-colors has-[button:hover]:bg-accent">
          <UserAvatar
            name={peer?.username ?? (peer === null ? DELETED_ACCOUNT : '')}
            src={peer?.profilePic}
            size="sm"
          />
          <div className="min-w-0 flex-1">
            <paneHeader.Heading className="flex items-center gap-1.5 font-semibold leading-tight">
              {peer ? (
                <button
                  ref={nameRef}
                  type="button"
                  aria-haspopup="dialog"
                  aria-expanded={panelOpen}
                  title="Contact info"
                  onClick={() => setPanelOpen(true)}
                  className="absolute inset-0 z-10 cursor-pointer rounded-lg focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
                >
                  <span className="sr-only">{handle}</span>
                </button>
              ) : null}
              {/* Said by the button (or, with no button, by this text). */}
              <span aria-hidden={peer ? true : undefined} className="truncate">
                {handle}
              </span>
              {peer?.verified ? <VerifiedBadge /> : null}
            </paneHeader.Heading>
            {peer ? (
              <p className={presence?.online ? 'text-xs text-success' : 'text-xs text-muted-foreground'}>
                {typing ? 'typing…' : presence ? presenceText(presence) : '\u00a0'}
              </p>
            ) : null}
          </div>
        </div>
        {props.onSearch ? (
          <Button
            variant="ghost"
            size="icon"
            aria-label="Search in chat"
            title="Search in chat"
            data-search-button
            onClick={props.onSearch}
          >
            <Search />
          </Button>
        ) : null}
        {peer ? (
          <Button
            variant="ghost"
            size="icon"
            aria-label="Compare security code"
            title="Compare security code"
            onClick={props.onVerify}
          >
            <ShieldCheck />
          </Button>
        ) : null}
      </div>
      <ConnectionBar />
      {peer ? (
        <ContactPanel
          peer={peer}
          presence={presence}
          trust={props.trust ?? null}
          open={panelOpen}
          onOpenChange={setPanelOpen}
          onVerify={props.onVerify}
          returnFocus={nameRef}
        />
      ) : null}
    </header>
  );
}
