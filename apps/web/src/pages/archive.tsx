import { PageShell } from '@/components/page-shell';

/** Placeholder: being built. */
export default function ArchivedPage() {
  return (
    <PageShell title="Archived" back="/home">
      <p className="text-sm text-muted-foreground">Loading…</p>
    </PageShell>
  );
}
