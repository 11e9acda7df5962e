import type { LucideIcon } from 'lucide-react';

/** The centred icon, title and hint of an empty list. */
export function EmptyState({ icon: Icon, title, text }: { icon: LucideIcon; title: string; text?: string }) {
  return (
    <div className="flex flex-1 flex-col items-center justify-center gap-3 px-6 py-16 text-center">
      <span className="flex size-16 items-center justify-center rounded-full bg-secondary text-primary">
        <Icon className="size-8" aria-hidden />
      </span>
      <p className="text-lg font-semibold">{title}</p>
      {text ? <p className="text-sm text-muted-foreground">{text}</p> : null}
    </div>
  );
}
