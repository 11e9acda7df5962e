import { PageShell } from '@/components/page-shell';

/** Placeholder: being built. */
export default function ProfilePage() {
  return (
    <PageShell title="Profile" back="/home">
      <p className="text-sm text-muted-foreground">Loading…</p>
    </PageShell>
  );
}
