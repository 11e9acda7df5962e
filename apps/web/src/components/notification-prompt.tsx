import { APP_NAME } from '@app/protocol';
import { BellRing } from 'lucide-react';
import { useState } from 'react';
import {
  dismissNotificationOffer,
  requestNotificationPermission,
  shouldOfferNotifications,
} from '@/lib/desktop-notifications';
import { cn } from '@/lib/utils';
import { Button } from './ui/button';

/**
 * Offers browser notifications while the permission is undecided and the offer was not
 * dismissed. The browser's permission prompt opens only from the Enable click.
 */
export function NotificationPrompt({ className }: { className?: string }) {
  const [offered, setOffered] = useState(shouldOfferNotifications);
  const [busy, setBusy] = useState(false);
  if (!offered) return null;
  return (
    <section
      aria-label="Browser notifications"
      className={cn(
        'flex flex-wrap items-center gap-x-3 gap-y-2 rounded-xl border border-dashed border-input bg-muted/60 p-3 text-sm',
        className,
      )}
    >
      <span className="flex size-9 shrink-0 items-center justify-center rounded-full bg-background text-primary shadow-sm">
        <BellRing className="size-4" aria-hidden />
      </span>
      <p className="min-w-0 flex-1 basis-40 font-medium">Get notified when {APP_NAME} is in the background</p>
      <div className="ml-auto flex gap-2">
        <Button
          size="sm"
          variant="ghost"
          onClick={() => {
            dismissNotificationOffer();
            setOffered(false);
          }}
        >
          Not now
        </Button>
        <Button
          size="sm"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            try {
              await requestNotificationPermission();
            } catch {
              // An old browser without the promise form: the offer stays until dismissed.
            } finally {
              setBusy(false);
              setOffered(shouldOfferNotifications());
            }
          }}
        >
          Enable
        </Button>
      </div>
    </section>
  );
}
