import { Bell, History, LogOut, RefreshCw, Settings, SlidersHorizontal, Users } from 'lucide-react';
import { useCallback, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { AuditTab } from '@/components/admin/audit-tab';
import { BroadcastsTab } from '@/components/admin/broadcasts-tab';
import { HelpLinkTab } from '@/components/admin/help-link-tab';
import { UsersTab } from '@/components/admin/users-tab';
import { PageShell } from '@/components/page-shell';
import { Spinner } from '@/components/spinner';
import { Button } from '@/components/ui/button';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs';
import { useSession } from '@/hooks/use-session';
import { useSignOut } from '@/hooks/use-sign-out';
import { adminStats } from '@/lib/admin-api';

type Stats = { state: 'loading' } | { state: 'ready'; totalUsers: number } | { state: 'failed'; message: string };

const TABS = ['users', 'notifications', 'settings', 'activity'] as const;
type Tab = (typeof TABS)[number];

export default function AdminPage() {
  const { user } = useSession();
  const { signOut, busy: signingOut } = useSignOut();
  const [stats, setStats] = useState<Stats>({ state: 'loading' });
  const [tab, setTab] = useState<Tab>('users');

  const load = useCallback(() => {
    setStats({ state: 'loading' });
    adminStats().then(
      (r) => setStats({ state: 'ready', totalUsers: r.totalUsers }),
      (e: unknown) => setStats({ state: 'failed', message: e instanceof Error ? e.message : 'Could not load' }),
    );
  }, []);
  useEffect(load, [load]);

  // The unfiltered user list knows the count too: it keeps the card current.
  const onTotal = useCallback((totalUsers: number) => setStats({ state: 'ready', totalUsers }), []);

  return (
    <PageShell
      title="Admin Dashboard"
      actions={
        <>
          <Button asChild variant="ghost" size="icon">
            <Link to="/settings" aria-label="Settings">
              <Settings className="size-5" />
            </Link>
          </Button>
          <Button variant="ghost" size="icon" aria-label="Logout" disabled={signingOut} onClick={signOut}>
            <LogOut className="size-5" />
          </Button>
        </>
      }
      className="grid content-start gap-5"
    >
      <section
        aria-labelledby="admin-total-users"
        className="flex items-center gap-4 rounded-xl border border-border bg-background p-4 shadow-sm md:p-5"
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
            <p className="text-3xl font-bold tabular-nums" data-testid="total-users">
              {stats.totalUsers.toLocaleString('en-US')}
            </p>
          ) : (
            <p role="alert" className="text-sm text-destructive">
              {stats.message}
            </p>
          )}
          {user ? (
            <p className="truncate text-xs text-muted-foreground">
              Signed in as <span className="font-medium text-foreground">{user.email}</span>
            </p>
          ) : null}
        </div>
        {stats.state === 'failed' ? (
          <Button variant="outline" size="sm" onClick={load}>
            <RefreshCw aria-hidden />
            Retry
          </Button>
        ) : null}
      </section>

      <Tabs value={tab} onValueChange={(v) => setTab(v as Tab)} className="grid gap-4">
        <TabsList aria-label="Admin sections">
          <TabsTrigger value="users">
            <Users aria-hidden />
            Users
          </TabsTrigger>
          <TabsTrigger value="notifications">
            <Bell aria-hidden />
            Notifications
          </TabsTrigger>
          <TabsTrigger value="settings">
            <SlidersHorizontal aria-hidden />
            Settings
          </TabsTrigger>
          <TabsTrigger value="activity">
            <History aria-hidden />
            Activity
          </TabsTrigger>
        </TabsList>
        <TabsContent value="users">
          <UsersTab onTotal={onTotal} />
        </TabsContent>
        <TabsContent value="notifications">
          <BroadcastsTab />
        </TabsContent>
        <TabsContent value="settings">
          <HelpLinkTab />
        </TabsContent>
        <TabsContent value="activity">
          <AuditTab />
        </TabsContent>
      </Tabs>
    </PageShell>
  );
}
