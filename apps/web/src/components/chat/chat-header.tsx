import type { Presence, PublicUser } from '@app/protocol';
import { DELETED_ACCOUNT } from '@app/protocol';
import { ArrowLeft, ShieldCheck } from 'lucide-react';
import { ConnectionBar } from '@/components/connection-bar';
import { Button } from '@/components/ui/button';
import { UserAvatar } from '@/components/user-avatar';
import { VerifiedBadge } from '@/components/verified-badge';
import { presenceText } from '@/lib/format-time';

/** The chat's header: back, the peer (deleted, or loading: undefined), presence or typing. */
export function ChatHeader(props: {
  peer: PublicUser | null | undefined;
  handle: string;
  presence: Presence | undefined;
  typing: boolean;
  onBack(): void;
  /** Opens "Verify security code". */
  onVerify(): void;
}) {
  const { peer, handle, presence, typing } = props;
  return (
    <header className="border-b border-border bg-background">
      <div className="flex h-14 items-center gap-2 px-2">
        <Button variant="ghost" size="icon" aria-label="Back" onClick={props.onBack}>
          <ArrowLeft />
        </Button>
        <UserAvatar name={peer?.username ?? (peer === null ? DELETED_ACCOUNT : '')} src={peer?.profilePic} size="sm" />
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
        {peer ? (
          <Button
            variant="ghost"
            size="icon"
            aria-label="Verify security code"
            title="Verify security code"
            onClick={props.onVerify}
          >
            <ShieldCheck />
          </Button>
        ) : null}
      </div>
      <ConnectionBar />
    </header>
  );
}
