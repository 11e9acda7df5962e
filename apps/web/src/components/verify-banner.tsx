import { API, noContentSchema } from '@app/protocol';
import { MailWarning } from 'lucide-react';
import { useState } from 'react';
import { ApiError, api } from '@/lib/api';
import { Button } from './ui/button';
import { notify, notifyError } from './ui/toaster';

/** Invites a user whose e-mail is not verified yet to verify it, with a resend. */
export function VerifyBanner({ email }: { email: string }) {
  const [busy, setBusy] = useState(false);
  return (
    <div
      role="status"
      className="flex flex-wrap items-center gap-x-3 gap-y-1 border-b border-amber-200 bg-amber-50 px-4 py-2 text-sm text-amber-900"
    >
      <MailWarning className="size-4 shrink-0" aria-hidden />
      <span className="min-w-0 flex-1 basis-[calc(100%-2rem)] sm:basis-auto">
        Please verify your e-mail address. We sent a link to{' '}
        <strong className="[overflow-wrap:anywhere]">{email}</strong>.
      </span>
      <Button
        size="sm"
        variant="outline"
        className="ml-7 sm:ml-0"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await api(noContentSchema, 'POST', API.resendVerification, {});
            notify('Verification Email Sent', `Check ${email} for the link`);
          } catch (e) {
            notifyError('Could Not Send Email', e instanceof ApiError ? e.message : undefined);
          } finally {
            setBusy(false);
          }
        }}
      >
        {busy ? 'Sending...' : 'Resend email'}
      </Button>
    </div>
  );
}
