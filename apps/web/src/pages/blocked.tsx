import { API, noContentSchema } from '@app/protocol';
import { LogOut, ShieldBan } from 'lucide-react';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { wipeLocalData } from '@/client/local-data';
import { Button } from '@/components/ui/button';
import { api } from '@/lib/api';
import { setUser } from '@/lib/session';

export default function BlockedPage() {
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);

  const signOut = async () => {
    setBusy(true);
    try {
      await api(noContentSchema, 'POST', API.signOut, {});
    } catch {
      // The session is most likely revoked already; signing out locally is what matters.
    }
    await wipeLocalData();
    setUser(null);
    navigate('/signin', { replace: true });
  };

  return (
    <div className="flex min-h-full items-center justify-center bg-muted px-4 py-8">
      <main
        id="main"
        className="flex w-full max-w-md flex-col items-center gap-5 rounded-3xl border border-border bg-background p-8 text-center shadow-sm"
      >
        <span className="flex size-16 items-center justify-center rounded-full bg-red-100 text-destructive dark:bg-red-400/15">
          <ShieldBan className="size-8" aria-hidden />
        </span>
        <div className="space-y-2">
          <h1 className="text-2xl font-bold">Account Blocked</h1>
          <p className="text-muted-foreground">
            Your account has been blocked by the administrator. If you believe this is a mistake, please contact
            support.
          </p>
        </div>
        <Button size="lg" variant="outline" className="w-full" disabled={busy} onClick={signOut}>
          <LogOut aria-hidden />
          {busy ? 'Signing Out...' : 'Sign Out'}
        </Button>
      </main>
    </div>
  );
}
