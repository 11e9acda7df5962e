import { PageShell } from '@/components/page-shell';

/** Placeholder: being built. */
export default function NotificationsPage() {
  return (
    <PageShell title="Notifications" back="/home">
      <p className="text-sm text-muted-foreground">Loading…</p>
    </PageShell>
  );
}
