import type * as React from 'react';
import { useId } from 'react';
import { cn } from '@/lib/utils';

/** A titled card of a settings screen (Account, Profile, Privacy), with an optional description. */
export function FormSection({
  title,
  description,
  children,
  className,
}: {
  title: string;
  description?: React.ReactNode;
  children: React.ReactNode;
  className?: string;
}) {
  const id = useId();
  return (
    <section aria-labelledby={id} className={cn('grid gap-4 rounded-xl border border-border p-4 md:p-5', className)}>
      <div className="grid gap-1">
        <h2 id={id} className="text-base font-semibold">
          {title}
        </h2>
        {description ? <p className="text-sm text-muted-foreground">{description}</p> : null}
      </div>
      {children}
    </section>
  );
}
