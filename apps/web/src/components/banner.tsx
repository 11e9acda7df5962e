import type { LucideIcon } from 'lucide-react';
import type * as React from 'react';

/** A strip across the top of a screen that asks for the user's attention, with an action at its end. */
export function Banner({
  icon: Icon,
  children,
  action,
}: {
  icon: LucideIcon;
  children: React.ReactNode;
  action: React.ReactNode;
}) {
  return (
    <div
      role="status"
      className="flex flex-wrap items-center gap-x-3 gap-y-1 border-b border-warning-border bg-warning-subtle px-4 py-2 text-sm text-warning-foreground"
    >
      <Icon className="size-4 shrink-0" aria-hidden />
      <span className="min-w-0 flex-1 basis-[calc(100%-2rem)] sm:basis-auto">{children}</span>
      {action}
    </div>
  );
}
