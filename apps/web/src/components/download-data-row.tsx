/**
 * Settings › "Download my data": builds the account's archive in this browser (the export
 * code and fflate load only on click), with a progress bar while it runs and the reason
 * when it fails.
 */
import { Download } from 'lucide-react';
import { useState } from 'react';
import { SettingsRow } from '@/components/settings-row';
import { notify } from '@/components/ui/toaster';
import { useSession } from '@/lib/session';
import { TINT } from '@/lib/tints';

type State = { kind: 'idle' } | { kind: 'running'; percent: number } | { kind: 'failed'; message: string };

export function DownloadDataRow() {
  const { user } = useSession();
  const [state, setState] = useState<State>({ kind: 'idle' });
  const running = state.kind === 'running';

  async function start() {
    if (!user || running) return;
    setState({ kind: 'running', percent: 0 });
    try {
      const [{ downloadMyData }, { getChatClient }] = await Promise.all([
        import('@/lib/export/download-data'),
        import('@/lib/chat-client-singleton'),
      ]);
      const client = getChatClient();
      if (!client) throw new Error('Please sign in again to download your data.');
      const fileName = await downloadMyData(
        user,
        (r) => client.crypto.read(r),
        (percent) => setState({ kind: 'running', percent }),
      );
      setState({ kind: 'idle' });
      notify('Your data is downloaded', fileName);
    } catch (e) {
      setState({
        kind: 'failed',
        message: e instanceof Error && e.message ? e.message : 'The download failed. Please try again.',
      });
    }
  }

  return (
    <>
      <SettingsRow
        kind="button"
        icon={Download}
        label="Download my data"
        tint={TINT.teal}
        onClick={() => void start()}
        disabled={running}
        end={running ? <span className="text-sm text-muted-foreground">{state.percent}%</span> : null}
      />
      {state.kind === 'running' ? (
        <div className="px-4 pb-3">
          <div
            role="progressbar"
            aria-label="Preparing your data"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={state.percent}
            className="h-2 overflow-hidden rounded-full bg-primary/15"
          >
            <div className="h-full rounded-full bg-primary transition-[width]" style={{ width: `${state.percent}%` }} />
          </div>
        </div>
      ) : null}
      {state.kind === 'failed' ? (
        <p role="alert" className="px-4 pb-3 text-sm text-destructive">
          Download failed: {state.message}
        </p>
      ) : null}
    </>
  );
}
