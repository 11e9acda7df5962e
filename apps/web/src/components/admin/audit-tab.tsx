import { AUDIT_LABELS, type AuditEntry } from '@app/protocol';
import { History, RefreshCw } from 'lucide-react';
import { useCallback, useEffect, useRef, useState } from 'react';
import { EmptyState } from '@/components/empty-state';
import { Spinner } from '@/components/spinner';
import { Button } from '@/components/ui/button';
import { notifyError } from '@/components/ui/toaster';
import { auditLog } from '@/lib/admin-api';
import { formatDateTime } from '@/lib/format-time';

/** Who did what, when: every administrative action, newest first. */
export function AuditTab() {
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const generation = useRef(0);

  const load = useCallback(() => {
    const gen = ++generation.current;
    setError(null);
    auditLog().then(
      (page) => {
        if (gen !== generation.current) return;
        setEntries(page.entries);
        setNext(page.next);
      },
      (e: unknown) => {
        if (gen === generation.current) setError(e instanceof Error ? e.message : 'Could not load the log');
      },
    );
  }, []);
  useEffect(load, [load]);

  const more = async () => {
    if (!next || loadingMore) return;
    const gen = generation.current;
    setLoadingMore(true);
    try {
      const page = await auditLog(next);
      if (gen !== generation.current) return;
      setEntries((list) => [...(list ?? []), ...page.entries.filter((e) => !list?.some((o) => o.id === e.id))]);
      setNext(page.next);
    } catch (e) {
      notifyError('Could not load more', e instanceof Error ? e.message : undefined);
    } finally {
      setLoadingMore(false);
    }
  };

  return (
    <section aria-labelledby="audit-heading" className="grid gap-3">
      <div className="flex items-center justify-between gap-2">
        <div>
          <h2 id="audit-heading" className="text-base font-semibold">
            Activity Log
          </h2>
          <p className="text-sm text-muted-foreground">Every administrative action, newest first.</p>
        </div>
        <Button variant="outline" size="sm" onClick={load} aria-label="Refresh the log">
          <RefreshCw aria-hidden />
          <span className="max-sm:sr-only">Refresh</span>
        </Button>
      </div>
      {entries === null ? (
        error ? (
          <p role="alert" className="py-8 text-center text-sm text-destructive">
            {error}
          </p>
        ) : (
          <div className="flex justify-center py-12">
            <Spinner />
          </div>
        )
      ) : entries.length === 0 ? (
        <EmptyState icon={History} title="No activity yet" text="Admin actions are recorded here." />
      ) : (
        <ol aria-label="Activity log" className="divide-y divide-border rounded-xl border border-border">
          {entries.map((e) => (
            <li key={e.id} className="grid gap-0.5 px-3 py-2.5 text-sm" data-testid="audit-entry">
              <p className="[overflow-wrap:anywhere]">
                <span className="font-medium">{e.actorUsername ? `@${e.actorUsername}` : 'Shell'}</span>{' '}
                {AUDIT_LABELS[e.action] ?? e.action}
                {e.targetLabel ? (
                  <span className="font-medium">
                    {' '}
                    {e.action.startsWith('broadcast.') ? `"${e.targetLabel}"` : e.targetLabel}
                  </span>
                ) : null}
                {e.detail ? <span className="text-muted-foreground"> ({e.detail})</span> : null}
              </p>
              <time className="text-xs text-muted-foreground" dateTime={new Date(e.at).toISOString()}>
                {formatDateTime(e.at)}
              </time>
            </li>
          ))}
        </ol>
      )}
      {next ? (
        <Button variant="outline" onClick={() => void more()} disabled={loadingMore}>
          {loadingMore ? 'Loading...' : 'Load older'}
        </Button>
      ) : null}
    </section>
  );
}
