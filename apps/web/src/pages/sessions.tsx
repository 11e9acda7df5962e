/**
 * "Where you're signed in": the account's browsers (this one first), each with when it was
 * last active; any other can be signed out, or all of them at once. A browser signed out
 * here loses its connection at once.
 */
import type { SessionInfo } from '@app/protocol';
import { LogOut, Monitor, Smartphone } from 'lucide-react';
import { useCallback, useEffect, useState } from 'react';
import { LoadingOrFailed } from '@/components/loading-or-failed';
import { PageShell } from '@/components/page-shell';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { notify, notifyError } from '@/components/ui/toaster';
import { formatDayAndTime } from '@/lib/format-time';
import { endOtherSessions, endSession, loadSessions } from '@/lib/sessions-api';

/** A session's use is recorded at most hourly: within that, it is "active now". */
const RECENT_MS = 60 * 60 * 1000;

const MOBILE = /^(iOS|Android|iPadOS)\b/;

function lastActive(s: SessionInfo, now: number): string {
  if (s.current) return 'This browser';
  if (now - s.lastActiveAt < RECENT_MS) return 'Active in the last hour';
  return `Last active ${formatDayAndTime(s.lastActiveAt, now)}`;
}

const nameOf = (s: SessionInfo) => `${s.browser} on ${s.system}`;

export default function SessionsPage() {
  const [sessions, setSessions] = useState<SessionInfo[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);

  const load = useCallback(() => {
    setLoadError(null);
    loadSessions().then(setSessions, (e: unknown) =>
      setLoadError(e instanceof Error ? e.message : 'Could not load your browsers'),
    );
  }, []);
  useEffect(() => load(), [load]);

  const signOut = async (s: SessionInfo) => {
    setBusy(s.id);
    try {
      await endSession(s.id);
      notify('Signed Out', nameOf(s));
    } catch (e) {
      notifyError('Could not sign out', e instanceof Error ? e.message : undefined);
    } finally {
      setBusy(null);
      load();
    }
  };

  const signOutOthers = async () => {
    setBusy('others');
    try {
      const n = await endOtherSessions();
      notify('Signed Out', n === 1 ? '1 other browser' : `${n} other browsers`);
    } catch (e) {
      notifyError('Could not sign out', e instanceof Error ? e.message : undefined);
    } finally {
      setBusy(null);
      setConfirming(false);
      load();
    }
  };

  const now = Date.now();
  const others = sessions?.filter((s) => !s.current).length ?? 0;

  return (
    <PageShell title="Where you're signed in" back="/settings" className="grid content-start gap-6">
      <p className="text-sm text-muted-foreground">
        The browsers signed in to your account. Sign out any you do not recognise, then change your password.
      </p>
      {sessions ? (
        <>
          <ul
            aria-label="Signed-in browsers"
            className="divide-y divide-border overflow-hidden rounded-2xl border border-border"
          >
            {sessions.map((s) => {
              const Icon = MOBILE.test(s.system) ? Smartphone : Monitor;
              return (
                <li key={s.id} className="flex items-center gap-3 px-4 py-3">
                  <span className="flex size-10 shrink-0 items-center justify-center rounded-full bg-secondary text-primary">
                    <Icon className="size-5" aria-hidden />
                  </span>
                  <span className="min-w-0 flex-1">
                    <span className="block truncate font-medium">{s.browser}</span>
                    <span className="block text-sm text-muted-foreground">
                      {s.system} ·{' '}
                      <span className={s.current ? 'font-medium text-success' : undefined}>{lastActive(s, now)}</span>
                    </span>
                  </span>
                  {s.current ? null : (
                    <Button
                      variant="outline"
                      size="sm"
                      aria-label={`Sign out ${nameOf(s)}`}
                      disabled={busy !== null}
                      onClick={() => void signOut(s)}
                    >
                      Sign out
                    </Button>
                  )}
                </li>
              );
            })}
          </ul>
          {others > 0 ? (
            <Button
              variant="outline"
              className="justify-self-start text-destructive"
              disabled={busy !== null}
              onClick={() => setConfirming(true)}
            >
              <LogOut aria-hidden />
              Sign out all other browsers
            </Button>
          ) : (
            <p className="text-sm text-muted-foreground">You are signed in in this browser only.</p>
          )}
        </>
      ) : (
        <LoadingOrFailed error={loadError} onRetry={load} />
      )}
      <Dialog open={confirming} onOpenChange={setConfirming}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Sign out all other browsers?</DialogTitle>
            <DialogDescription>
              Every browser but this one is signed out at once. You stay signed in here.
            </DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <Button variant="outline" onClick={() => setConfirming(false)}>
              Cancel
            </Button>
            <Button variant="destructive" disabled={busy !== null} onClick={() => void signOutOthers()}>
              Sign out
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </PageShell>
  );
}
