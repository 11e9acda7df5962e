/**
 * Setting up an authenticator app: the QR code to scan (and the secret to type, for an app
 * on this same device), then the app's first code, which turns it on.
 */
import { useId, useState } from 'react';
import { QrSvg } from '@/components/qr-svg';
import { Button } from '@/components/ui/button';
import { FormField } from '@/components/ui/form-field';

/** The secret in groups of four, easier to type. */
const grouped = (secret: string) => secret.match(/.{1,4}/g)?.join(' ') ?? secret;

export function TotpSetup({
  setup,
  busy,
  onCode,
}: {
  setup: { secret: string; uri: string };
  busy: boolean;
  onCode: (code: string) => void;
}) {
  const [code, setCode] = useState('');
  const id = useId();
  return (
    <form
      noValidate
      className="grid gap-4"
      onSubmit={(e) => {
        e.preventDefault();
        onCode(code);
      }}
    >
      <p className="text-sm text-muted-foreground">
        Scan this with an authenticator app (such as Aegis, 2FAS, Google Authenticator or your password manager), then
        enter the 6-digit code it shows.
      </p>
      <QrSvg text={setup.uri} label="Authenticator app setup as a QR code" testId="totp-qr" />
      <p className="text-center text-xs text-muted-foreground">
        Or type this key:{' '}
        <code className="font-mono text-sm text-foreground" data-testid="totp-secret">
          {grouped(setup.secret)}
        </code>
      </p>
      <FormField
        id={`${id}-code`}
        label="Code from the app"
        inputMode="numeric"
        autoComplete="one-time-code"
        placeholder="123 456"
        value={code}
        onChange={(e) => setCode(e.target.value)}
      />
      <Button type="submit" disabled={busy}>
        {busy ? 'Checking...' : 'Turn On'}
      </Button>
    </form>
  );
}
