import { MSG } from '@app/protocol';
import { LinkIcon } from 'lucide-react';
import type * as React from 'react';

/** What an e-mail link that cannot be used (bad, used or expired token) shows. */
export function InvalidLink({ children }: { children?: React.ReactNode }) {
  return (
    <div role="alert" className="flex flex-col items-center gap-4 text-center">
      <span className="flex size-14 items-center justify-center rounded-full bg-destructive/10 text-destructive">
        <LinkIcon className="size-7" aria-hidden />
      </span>
      <p className="text-sm font-medium">{MSG.invalidLink}</p>
      {children}
    </div>
  );
}
