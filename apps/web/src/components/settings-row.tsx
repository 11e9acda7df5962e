import { ChevronRight, ExternalLink, type LucideIcon } from 'lucide-react';
import type * as React from 'react';
import { Link } from 'react-router';
import { cn } from '@/lib/utils';

const ROW =
  'flex w-full items-center gap-3 px-4 py-3 text-left transition-colors focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-ring';
const ACTIVE = 'cursor-pointer hover:bg-accent';

function RowBody({ icon: Icon, label, tint, end }: RowContent & { end: React.ReactNode }) {
  return (
    <>
      <span className={cn('flex size-9 shrink-0 items-center justify-center rounded-full', tint)}>
        <Icon className="size-[18px]" aria-hidden />
      </span>
      <span className="flex-1 truncate font-medium">{label}</span>
      {end}
    </>
  );
}

interface RowContent {
  icon: LucideIcon;
  label: string;
  /** Background and text colour classes of the icon circle. */
  tint: string;
}

type SettingsRowProps = RowContent &
  (
    | { kind: 'link'; to: string }
    | { kind: 'external'; href: string }
    | { kind: 'button'; onClick(): void; disabled?: boolean; end?: React.ReactNode }
    | { kind: 'static'; value?: React.ReactNode; badge?: string }
  );

/** One row of a settings list: an in-app link, an external link (new tab), a button or a non-clickable row. */
export function SettingsRow(props: SettingsRowProps) {
  const { icon, label, tint } = props;
  const content = { icon, label, tint };
  if (props.kind === 'link') {
    return (
      <Link to={props.to} className={cn(ROW, ACTIVE)}>
        <RowBody {...content} end={<ChevronRight className="size-5 text-muted-foreground" aria-hidden />} />
      </Link>
    );
  }
  if (props.kind === 'button') {
    return (
      <button
        type="button"
        onClick={props.onClick}
        disabled={props.disabled}
        className={cn(ROW, ACTIVE, 'disabled:cursor-default disabled:hover:bg-transparent')}
      >
        <RowBody {...content} end={props.end ?? null} />
      </button>
    );
  }
  if (props.kind === 'external') {
    return (
      <a href={props.href} target="_blank" rel="noopener noreferrer" className={cn(ROW, ACTIVE)}>
        <RowBody
          {...content}
          end={
            <>
              <span className="sr-only">(opens in a new tab)</span>
              <ExternalLink className="size-4 text-muted-foreground" aria-hidden />
            </>
          }
        />
      </a>
    );
  }
  return (
    <div className={ROW}>
      <RowBody
        {...content}
        end={
          <>
            {props.badge ? (
              <span className="rounded-full bg-muted px-2.5 py-0.5 text-xs font-medium text-muted-foreground">
                {props.badge}
              </span>
            ) : null}
            {props.value !== undefined ? <span className="text-sm text-muted-foreground">{props.value}</span> : null}
          </>
        }
      />
    </div>
  );
}

/** A rounded group of rows with dividers. */
export function SettingsGroup({ label, children }: { label?: string; children: React.ReactNode }) {
  return (
    <section className="space-y-2">
      {label ? (
        <h2 className="px-1 text-xs font-semibold uppercase tracking-wide text-muted-foreground">{label}</h2>
      ) : null}
      <ul className="divide-y divide-border overflow-hidden rounded-2xl border border-border bg-background">
        {children}
      </ul>
    </section>
  );
}
