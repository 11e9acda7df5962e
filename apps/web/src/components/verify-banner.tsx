import { API } from '@app/protocol';
import { MailWarning } from 'lucide-react';
import { useState } from 'react';
import { ApiError, apiJson } from '@/lib/api';
import { Banner } from './banner';
import { Button } from './ui/button';
import { notify, notifyError } from './ui/toaster';

/** Invites a user whose e-mail is not verified yet to verify it, with a resend. */
export function VerifyBanner({ email }: { email: string }) {
  const [busy, setBusy] = useState(false);
  return (
    <Banner
      icon={MailWarning}
      action={
        <Button
          size="sm"
          variant="outline"
          className="ml-7 sm:ml-0"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            try {
              // No content comes back (apiJson: this banner is on the first chunk, without zod).
              await apiJson('POST', API.resendVerification, {});
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
      }
    >
      Please verify your e-mail address. We sent a link to <strong className="[overflow-wrap:anywhere]">{email}</strong>
      .
    </Banner>
  );
}
