import { lazy, Suspense } from 'react';

// sonner and its styles load once the first screen is up: a toast only follows an event.
// A toast asked for before the toaster is mounted waits for it (sonner replays them).
const load = () => import('./sonner-toaster');
const SonnerToaster = lazy(load);

/** Where the toasts appear (mounted once, in App). */
export function Toaster() {
  return (
    <Suspense fallback={null}>
      <SonnerToaster />
    </Suspense>
  );
}

/** Toasts: `notify` for success, `notifyError` for failures (destructive style). */
export function notify(title: string, description?: string): void {
  void load().then((toasts) => toasts.showSuccess(title, description));
}

export function notifyError(title: string, description?: string): void {
  void load().then((toasts) => toasts.showError(title, description));
}
