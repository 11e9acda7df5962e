import { Check, CheckCheck, Clock } from 'lucide-react';
import type { UiMessage } from '@/client/conversations/conversation';
import { cn } from '@/lib/utils';

/**
 * The delivery state of an own message: a clock while it waits in the outbox, one
 * tick when sent, two when delivered, two blue ones when read. `onList`: drawn on the
 * chat list's background rather than an own bubble (read ticks in the primary colour).
 */
export function MessageTicks({
  message,
  className,
  onList = false,
}: {
  message: Pick<UiMessage, 'pending' | 'status'>;
  className?: string;
  onList?: boolean;
}) {
  const [label, Icon, tint] = message.pending
    ? (['Pending', Clock, 'opacity-80'] as const)
    : message.status === 'read'
      ? (['Read', CheckCheck, onList ? 'text-primary' : 'text-cyan-200'] as const)
      : message.status === 'delivered'
        ? (['Delivered', CheckCheck, 'opacity-80'] as const)
        : (['Sent', Check, 'opacity-80'] as const);
  return (
    <span role="img" aria-label={label} title={label} className={cn('inline-flex', tint, className)}>
      <Icon className="size-3.5" strokeWidth={2.5} aria-hidden />
    </span>
  );
}
