import { PageShell } from '@/components/page-shell';

/** Placeholder: being built. */
export default function PrivacyPage() {
  return (
    <PageShell title="Privacy" back="/home">
      <p className="text-sm text-muted-foreground">Loading…</p>
    </PageShell>
  );
}
