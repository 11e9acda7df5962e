import type { LucideIcon } from 'lucide-react';
import { cn } from '@/lib/utils';

export interface Feature {
  icon: LucideIcon;
  title: string;
  text: string;
  /** Background and text colour classes of the icon tile (lib/tints.ts). */
  tint: string;
}

/**
 * A product's points (the intro, About): each an icon on a tinted tile beside its title and a
 * line of text, one under another; with `across`, three across wherever their container is
 * wide enough (a card, not a pane or a phone).
 */
export function FeatureList({
  features,
  heading: Heading,
  across = false,
}: {
  features: Feature[];
  heading: 'h2' | 'h3';
  across?: boolean;
}) {
  const list = (
    <ul className={cn('grid text-left', across ? 'gap-3 @lg:grid-cols-3' : 'gap-4')}>
      {features.map(({ icon: Icon, title, text, tint }) => (
        <li
          key={title}
          className={cn(
            'flex items-start gap-4 rounded-2xl border border-border p-4',
            across && '@lg:flex-col @lg:gap-3',
          )}
        >
          <span className={cn('flex size-11 shrink-0 items-center justify-center rounded-xl', tint)}>
            <Icon className="size-5" aria-hidden />
          </span>
          <div className="space-y-0.5">
            <Heading className="font-semibold">{title}</Heading>
            <p className="text-sm text-muted-foreground">{text}</p>
          </div>
        </li>
      ))}
    </ul>
  );
  return across ? <div className="@container w-full">{list}</div> : list;
}
