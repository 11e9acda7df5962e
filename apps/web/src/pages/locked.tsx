import { PageShell } from '@/components/page-shell';

/** Placeholder: being built. */
export default function LockedPage() {
  return (
    <PageShell title="Locked" back="/home">
      <p className="text-sm text-muted-foreground">Loading…</p>
    </PageShell>
  );
}
