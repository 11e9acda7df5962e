import { API } from '@app/protocol';
import { LogOut, RefreshCw, Settings, Users } from 'lucide-react';
import { useCallback, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { PageShell } from '@/components/page-shell';
import { Spinner } from '@/components/spinner';
import { Button } from '@/components/ui/button';
import { useSignOut } from '@/hooks/use-sign-out';
import { api } from '@/lib/api';
import { useSession } from '@/lib/session';

type Stats = { state: 'loading' } | { state: 'ready'; totalUsers: number } | { state: 'failed'; message: string };

export default function AdminPage() {
  const { user } = useSession();
  const { signOut, busy: signingOut } = useSignOut();
  const [stats, setStats] = useState<Stats>({ state: 'loading' });

  const load = useCallback(() => {
    setStats({ state: 'loading' });
    api<{ totalUsers: number }>('GET', API.adminStats)
      .then((r) => setStats({ state: 'ready', totalUsers: r.totalUsers }))
      .catch((e: unknown) => setStats({ state: 'failed', message: e instanceof Error ? e.message : 'Could not load' }));
  }, []);

  useEffect(load, [load]);

  return (
    <PageShell
      title="Admin Dashboard"
      actions={
        <Button asChild variant="ghost" size="icon">
          <Link to="/settings" aria-label="Settings">
            <Settings className="size-5" />
          </Link>
        </Button>
      }
      className="grid content-start gap-6"
    >
      {user ? (
        <p className="text-sm text-muted-foreground">
          Signed in as <span className="break-all font-medium text-foreground">{user.email}</span>
        </p>
      ) : null}
      <section
        aria-labelledby="admin-total-users"
        className="flex items-center gap-4 rounded-xl border border-border bg-background p-5 shadow-sm"
      >
        <span className="flex size-12 shrink-0 items-center justify-center rounded-full bg-secondary text-primary">
          <Users className="size-6" aria-hidden />
        </span>
        <div className="min-w-0 flex-1">
          <h2 id="admin-total-users" className="text-sm font-medium text-muted-foreground">
            Total Users
          </h2>
          {stats.state === 'loading' ? (
            <div className="pt-1">
              <Spinner />
            </div>
          ) : stats.state === 'ready' ? (
            <p className="text-3xl font-bold tabular-nums">{stats.totalUsers.toLocaleString('en-US')}</p>
          ) : (
            <p role="alert" className="text-sm text-destructive">
              {stats.message}
            </p>
          )}
        </div>
        {stats.state === 'failed' ? (
          <Button variant="outline" size="sm" onClick={load}>
            <RefreshCw aria-hidden />
            Retry
          </Button>
        ) : null}
      </section>
      <Button variant="outline" className="w-full" disabled={signingOut} onClick={signOut}>
        <LogOut aria-hidden />
        Logout
      </Button>
    </PageShell>
  );
}
