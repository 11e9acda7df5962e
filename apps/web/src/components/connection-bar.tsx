import { Loader2, WifiOff } from 'lucide-react';
import { useEffect, useState } from 'react';
import { useConnectionStatus } from '@/hooks/chat-hooks';
import { usePane } from './layout/pane-context';

/** How long 'connecting' lasts before the bar shows it, so a quick reconnect does not flash. */
const SHOW_CONNECTING_AFTER_MS = 1200;

/**
 * A thin bar under the header while the chat connection is not up: once per page (in the
 * desktop layout, under the main screen's header, not under the one beside it).
 */
export function ConnectionBar() {
  const secondary = usePane()?.role === 'secondary';
  const status = useConnectionStatus();
  const [showConnecting, setShowConnecting] = useState(false);
  useEffect(() => {
    if (status !== 'connecting') {
      setShowConnecting(false);
      return;
    }
    const t = setTimeout(() => setShowConnecting(true), SHOW_CONNECTING_AFTER_MS);
    return () => clearTimeout(t);
  }, [status]);

  if (secondary) return null;
  const offline = status === 'offline';
  const visible = offline || (status === 'connecting' && showConnecting);
  return (
    <div role="status" aria-live="polite" className={visible ? undefined : 'sr-only'}>
      {visible ? (
        <div
          className={
            offline
              ? 'flex items-center justify-center gap-2 bg-warning px-3 py-1 text-center text-xs font-medium text-warning-foreground'
              : 'flex items-center justify-center gap-2 bg-secondary px-3 py-1 text-center text-xs font-medium text-secondary-foreground'
          }
        >
          {offline ? (
            <WifiOff className="size-3.5 shrink-0" aria-hidden />
          ) : (
            <Loader2 className="size-3.5 shrink-0 animate-spin" aria-hidden />
          )}
          {offline ? 'Offline — messages will be sent when you are back online' : 'Connecting…'}
        </div>
      ) : null}
    </div>
  );
}
