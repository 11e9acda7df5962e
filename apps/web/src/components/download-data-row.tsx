/**
 * Settings › "Download my data": builds the account's archive in this browser (the export
 * code and fflate load only on click), with a progress bar while it runs and the reason
 * when it fails. Locked chats come with their messages only after the PIN (the server
 * withholds them otherwise): when some were left out, the row says so and offers the PIN,
 * then downloads again.
 */
import { Download } from 'lucide-react';
import { useState } from 'react';
import { PinGate } from '@/components/pin-gate';
import { SettingsRow } from '@/components/settings-row';
import { Button } from '@/components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import { notify } from '@/components/ui/toaster';
import { useSession } from '@/hooks/use-session';
import { TINT } from '@/lib/tints';

type State =
  | { kind: 'idle' }
  | { kind: 'running'; percent: number }
  | { kind: 'failed'; message: string }
  /** Downloaded without these locked chats' messages. */
  | { kind: 'withheld'; chats: number };

const chatsWord = (n: number) => (n === 1 ? '1 locked chat' : `${n} locked chats`);

export function DownloadDataRow() {
  const { user } = useSession();
  const [state, setState] = useState<State>({ kind: 'idle' });
  const running = state.kind === 'running';
  const [askPin, setAskPin] = useState(false);

  async function start() {
    if (!user || running) return;
    setState({ kind: 'running', percent: 0 });
    try {
      const [{ downloadMyData }, { getChatClient }] = await Promise.all([
        import('@/lib/export/download-data'),
        import('@/client/chat-client-singleton'),
      ]);
      const client = getChatClient();
      if (!client) throw new Error('Please sign in again to download your data.');
      const { fileName, withheldChats } = await downloadMyData(
        user,
        (r) => client.crypto.read(r),
        (percent) => setState({ kind: 'running', percent }),
        (ref) => client.files.open(ref),
      );
      setState(withheldChats > 0 ? { kind: 'withheld', chats: withheldChats } : { kind: 'idle' });
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
      {state.kind === 'withheld' ? (
        <div role="status" className="grid gap-2 px-4 pb-3 text-sm text-muted-foreground">
          <p>The messages of {chatsWord(state.chats)} were left out: they need your PIN.</p>
          <Button type="button" variant="outline" className="justify-self-start" onClick={() => setAskPin(true)}>
            Enter PIN and download again
          </Button>
        </div>
      ) : null}
      <Dialog open={askPin} onOpenChange={setAskPin}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Include locked chats</DialogTitle>
            <DialogDescription>Their messages are in the download once your PIN is entered.</DialogDescription>
          </DialogHeader>
          <PinGate
            title="Enter PIN"
            onCancel={() => setAskPin(false)}
            onUnlocked={() => {
              setAskPin(false);
              void start();
            }}
          />
        </DialogContent>
      </Dialog>
    </>
  );
}
