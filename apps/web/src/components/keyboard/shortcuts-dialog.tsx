import { Fragment } from 'react';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import { isMacPlatform, shortcutList } from '@/lib/shortcuts';

/** One key cap. */
function Key({ children }: { children: string }) {
  return (
    <kbd className="inline-flex min-w-7 items-center justify-center rounded-md border border-input bg-muted px-1.5 py-0.5 font-sans text-xs font-medium text-foreground shadow-[0_1px_0_var(--color-input)]">
      {children}
    </kbd>
  );
}

/** "Keyboard shortcuts" (opened with ?): each shortcut's keys and what it does. Focus goes back where it was on closing. */
export default function ShortcutsDialog({ open, onOpenChange }: { open: boolean; onOpenChange(open: boolean): void }) {
  const mac = isMacPlatform(typeof navigator === 'undefined' ? undefined : navigator);
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="max-h-[calc(100dvh-2rem)] overflow-y-auto">
        <DialogHeader>
          <DialogTitle>Keyboard shortcuts</DialogTitle>
          <DialogDescription>Use Parley without a mouse. Press ? to show this list again.</DialogDescription>
        </DialogHeader>
        <dl className="grid grid-cols-[auto_1fr] items-center gap-x-4 gap-y-2.5 text-sm">
          {shortcutList(mac).map(({ keys, does }) => (
            <Fragment key={does}>
              <dt className="flex items-center gap-1 justify-self-start">
                {keys.map((k, i) => (
                  <Fragment key={k}>
                    {i > 0 ? (
                      <span aria-hidden className="text-xs text-muted-foreground">
                        +
                      </span>
                    ) : null}
                    <Key>{k}</Key>
                  </Fragment>
                ))}
              </dt>
              <dd className="text-foreground">{does}</dd>
            </Fragment>
          ))}
        </dl>
      </DialogContent>
    </Dialog>
  );
}
