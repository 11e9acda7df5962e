/**
 * Under a bubble: its reactions grouped by emoji with their counts (the user's own
 * outlined). Who reacted shows on hover (the title) and is said to screen readers; on a
 * touch screen a long press on a chip shows it in a toast. Pressing a chip reacts with
 * that emoji, or takes one's own back.
 */
import { useMemo } from 'react';
import type { UiMessage } from '@/client/conversations/conversation';
import type { ShownReaction } from '@/client/reactions';
import { notify } from '@/components/ui/toaster';
import { useReactions } from '@/hooks/chat-hooks';
import { useLongPress } from '@/hooks/use-long-press';
import { useReact } from '@/hooks/use-react';
import { cn } from '@/lib/utils';
import { useConversationLookup } from './conversation-context';

interface Group {
  emoji: string;
  count: number;
  mine: boolean;
  /** 'You and @bob'. */
  who: string;
}

/** The reactions grouped by emoji, in the order each emoji was first used. */
export function groupReactions(list: readonly ShownReaction[], me: string, nameOf: (id: string) => string): Group[] {
  const groups = new Map<string, ShownReaction[]>();
  for (const r of list) groups.set(r.emoji, [...(groups.get(r.emoji) ?? []), r]);
  return [...groups].map(([emoji, rs]) => {
    const names = rs
      .slice()
      .sort((a, b) => (a.userId === me ? -1 : b.userId === me ? 1 : 0))
      .map((r) => (r.userId === me ? 'You' : nameOf(r.userId)));
    return { emoji, count: rs.length, mine: rs.some((r) => r.userId === me), who: names.join(' and ') };
  });
}

function Chip({ group, onPress }: { group: Group; onPress(): void }) {
  const press = useLongPress(() => notify(`${group.emoji} ${group.who}`));
  return (
    <button
      type="button"
      {...press}
      onClick={onPress}
      aria-pressed={group.mine}
      aria-label={`${group.emoji} ${group.count}: ${group.who}`}
      title={group.who}
      className={cn(
        'flex h-7 cursor-pointer items-center gap-1 rounded-full border px-2 text-sm shadow-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring pointer-coarse:h-9',
        group.mine ? 'border-primary bg-primary/15' : 'border-border bg-background',
      )}
    >
      <span aria-hidden className="font-emoji">
        {group.emoji}
      </span>
      {group.count > 1 ? <span className="text-xs tabular-nums text-muted-foreground">{group.count}</span> : null}
    </button>
  );
}

export function ReactionChips({ message, own }: { message: UiMessage; own: boolean }) {
  const list = useReactions(message);
  const lookup = useConversationLookup();
  const react = useReact();
  const me = lookup?.me ?? '';
  const groups = useMemo(
    () => groupReactions(list, me, (id) => (id === lookup?.peerId ? lookup.peerHandle : 'Someone')),
    [list, me, lookup?.peerId, lookup?.peerHandle],
  );
  if (message.deleted || groups.length === 0) return null;
  return (
    <ul
      aria-label="Reactions"
      className={cn('-mt-1 flex flex-wrap gap-1 px-4 pb-1', own ? 'justify-end' : 'justify-start')}
    >
      {groups.map((g) => (
        <li key={g.emoji}>
          <Chip group={g} onPress={() => react(message, g.emoji)} />
        </li>
      ))}
    </ul>
  );
}
