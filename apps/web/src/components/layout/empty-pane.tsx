import { Lock } from 'lucide-react';
import { AppLogo } from '@/components/app-logo';

/** The conversation pane of the desktop layout while no chat is open. */
export function EmptyPane() {
  return (
    <div className="flex flex-1 flex-col items-center justify-center gap-4 bg-muted/60 px-8 text-center">
      <AppLogo className="size-20" />
      <h2 className="text-2xl font-semibold">Select a chat</h2>
      <p className="max-w-sm text-sm text-muted-foreground">
        Choose a conversation from the list, or find someone in Contacts to start a new one.
      </p>
      <p className="flex items-center gap-1.5 text-xs text-muted-foreground">
        <Lock className="size-3.5" aria-hidden />
        Messages are end-to-end encrypted
      </p>
    </div>
  );
}
