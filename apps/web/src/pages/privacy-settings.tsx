import type { Privacy, PrivacyResponse } from '@app/protocol';
import { useCallback, useEffect, useId, useState } from 'react';
import { LoadingOrFailed } from '@/components/loading-or-failed';
import { PageShell } from '@/components/page-shell';
import { PinSettings } from '@/components/pin-settings';
import { Label } from '@/components/ui/label';
import { Switch } from '@/components/ui/switch';
import { notify, notifyError } from '@/components/ui/toaster';
import { loadPrivacy, savePrivacy } from '@/lib/social-api';

const TOGGLES: { key: keyof Privacy; label: string; hint: string }[] = [
  {
    key: 'readReceipts',
    label: 'Read Receipts',
    hint: "When off, others won't see when you read their messages, and you won't see theirs",
  },
  {
    key: 'lastSeen',
    label: 'Last Seen',
    hint: "When off, others see 'Last seen recently' instead of a time, and you won't see theirs",
  },
  {
    key: 'requireRequest',
    label: 'Message Requests',
    hint: 'When on, people who are not your contacts send a request first',
  },
];

function errorMessage(e: unknown): string | undefined {
  return e instanceof Error ? e.message : undefined;
}

export default function PrivacySettingsPage() {
  const [state, setState] = useState<PrivacyResponse | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);

  const load = useCallback(() => {
    setLoadError(null);
    loadPrivacy().then(setState, (e: unknown) => setLoadError(errorMessage(e) ?? 'Could not load your settings'));
  }, []);
  useEffect(() => load(), [load]);

  return (
    <PageShell title="Privacy Settings" back="/settings" className="grid content-start gap-6">
      {state ? (
        <>
          <PrivacyToggles state={state} onSaved={setState} />
          <PinSettings state={state} onSaved={setState} onStale={load} />
        </>
      ) : (
        <LoadingOrFailed error={loadError} onRetry={load} />
      )}
    </PageShell>
  );
}

// ---- the three toggles -------------------------------------------------------------------

/** Each toggle saves at once; while one save runs the others wait. */
function PrivacyToggles({ state, onSaved }: { state: PrivacyResponse; onSaved: (r: PrivacyResponse) => void }) {
  const [privacy, setPrivacy] = useState(state.privacy);
  const [saving, setSaving] = useState(false);
  const id = useId();

  useEffect(() => setPrivacy(state.privacy), [state.privacy]);

  const toggle = async (key: keyof Privacy, value: boolean) => {
    if (saving) return;
    const before = privacy;
    const next = { ...privacy, [key]: value };
    setPrivacy(next);
    setSaving(true);
    try {
      onSaved(await savePrivacy(next));
      notify('Privacy Settings Updated');
    } catch (e) {
      setPrivacy(before);
      notifyError('Failed to Update Privacy Settings', errorMessage(e));
    } finally {
      setSaving(false);
    }
  };

  return (
    <section aria-labelledby={`${id}-title`} className="rounded-xl border border-border">
      <h2 id={`${id}-title`} className="px-4 pt-4 text-base font-semibold md:px-5 md:pt-5">
        Privacy
      </h2>
      <ul className="divide-y divide-border" aria-busy={saving || undefined}>
        {TOGGLES.map(({ key, label, hint }) => (
          <li key={key} className="flex items-center gap-4 px-4 py-3.5 md:px-5">
            <div className="grid min-w-0 flex-1 gap-1">
              <Label htmlFor={`${id}-${key}`} className="cursor-pointer leading-snug">
                {label}
              </Label>
              <p id={`${id}-${key}-hint`} className="text-sm text-muted-foreground">
                {hint}
              </p>
            </div>
            <Switch
              id={`${id}-${key}`}
              checked={privacy[key]}
              aria-describedby={`${id}-${key}-hint`}
              aria-disabled={saving || undefined}
              onCheckedChange={(v) => void toggle(key, v)}
            />
          </li>
        ))}
      </ul>
    </section>
  );
}

// ---- the PIN -----------------------------------------------------------------------------
