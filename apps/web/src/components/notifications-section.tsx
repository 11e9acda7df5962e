import { useEffect, useId, useState } from 'react';
import { Label } from '@/components/ui/label';
import { Switch } from '@/components/ui/switch';
import { notify, notifyError } from '@/components/ui/toaster';
import { setSoundEnabled, useSoundEnabled } from '@/lib/sound';
import { disablePush, enablePush, pushEnabled, pushSupported } from '@/lib/web-push';

/**
 * Settings' Notifications section, for this browser: push notifications while Parley is
 * closed (each browser subscribes on its own; signing out ends its subscription) and a
 * sound for messages arriving while its tab is in the background. Not list items: the
 * spec's settings list is the rows above and below.
 */
export function NotificationsSection() {
  const id = useId();
  const sound = useSoundEnabled();
  return (
    <section aria-labelledby={`${id}-heading`} className="space-y-2">
      <h2 id={`${id}-heading`} className="px-1 text-xs font-semibold uppercase tracking-wide text-muted-foreground">
        Notifications
      </h2>
      <div className="divide-y divide-border rounded-2xl border border-border bg-background">
        {pushSupported() ? <PushRow /> : null}
        <div className="flex items-center gap-4 p-4">
          <div className="grid min-w-0 flex-1 gap-1">
            <Label htmlFor={`${id}-sound`} className="cursor-pointer leading-snug">
              Sound
            </Label>
            <p id={`${id}-sound-hint`} className="text-sm text-muted-foreground">
              A short chime for messages that arrive while Parley is in the background.
            </p>
          </div>
          <Switch
            id={`${id}-sound`}
            checked={sound}
            aria-describedby={`${id}-sound-hint`}
            onCheckedChange={setSoundEnabled}
          />
        </div>
      </div>
    </section>
  );
}

function PushRow() {
  const id = useId();
  const [on, setOn] = useState<boolean | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    pushEnabled()
      .then((v) => live && setOn(v))
      .catch(() => live && setOn(false));
    return () => {
      live = false;
    };
  }, []);
  async function toggle(next: boolean) {
    if (busy) return;
    setBusy(true);
    try {
      const state = next ? await enablePush() : await disablePush();
      setOn(state.subscribed);
      notify(state.subscribed ? 'Push notifications on' : 'Push notifications off');
    } catch (e) {
      notifyError('Push notifications unavailable', e instanceof Error ? e.message : 'Please try again.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="flex items-center gap-4 p-4">
      <div className="grid min-w-0 flex-1 gap-1">
        <Label htmlFor={`${id}-push`} className="cursor-pointer leading-snug">
          Push notifications
        </Label>
        <p id={`${id}-push-hint`} className="text-sm text-muted-foreground">
          Who wrote to you, even when Parley is closed. Never the message itself.
        </p>
      </div>
      <Switch
        id={`${id}-push`}
        checked={on === true}
        aria-describedby={`${id}-push-hint`}
        aria-disabled={busy || on === null || undefined}
        onCheckedChange={(v) => void toggle(v)}
      />
    </div>
  );
}
