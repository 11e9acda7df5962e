/**
 * Recovery codes, shown once (when the first way is set up, or a new set is asked for): each
 * works once in place of the app or passkey. Copy or download them, then say they are kept.
 */
import { Copy, Download } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { notify } from '@/components/ui/toaster';

export function RecoveryCodes({ codes, onDone }: { codes: readonly string[]; onDone: () => void }) {
  const text = `Parley recovery codes (each works once)\n\n${codes.join('\n')}\n`;
  const copy = () => void navigator.clipboard.writeText(text).then(() => notify('Copied', 'Your recovery codes'));
  const download = () => {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
    a.download = 'parley-recovery-codes.txt';
    a.click();
    URL.revokeObjectURL(a.href);
  };
  return (
    <div className="grid gap-4">
      <p className="text-sm text-muted-foreground">
        Keep these somewhere safe, apart from your phone. If you lose your authenticator app or passkey, each of them
        signs you in once. They are shown only now.
      </p>
      <ul
        aria-label="Recovery codes"
        className="grid grid-cols-2 gap-2 rounded-xl border bg-secondary/40 p-3 font-mono text-sm"
      >
        {codes.map((c) => (
          <li key={c} className="text-center tracking-wider">
            {c}
          </li>
        ))}
      </ul>
      <div className="flex flex-wrap gap-2">
        <Button type="button" variant="outline" size="sm" onClick={copy}>
          <Copy aria-hidden />
          Copy
        </Button>
        <Button type="button" variant="outline" size="sm" onClick={download}>
          <Download aria-hidden />
          Download
        </Button>
      </div>
      <Button type="button" onClick={onDone}>
        I have saved them
      </Button>
    </div>
  );
}
