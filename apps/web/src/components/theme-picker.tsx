import { type LucideIcon, Monitor, Moon, Sun } from 'lucide-react';
import { useId } from 'react';
import { type ThemeChoice, useTheme } from '@/lib/theme';
import { cn } from '@/lib/utils';

const OPTIONS: { value: ThemeChoice; label: string; icon: LucideIcon }[] = [
  { value: 'light', label: 'Light', icon: Sun },
  { value: 'dark', label: 'Dark', icon: Moon },
  { value: 'system', label: 'System', icon: Monitor },
];

/**
 * Settings' Appearance section: the theme as a segmented control of three radio buttons
 * (arrow keys move between them), remembered in this browser. System follows the device.
 */
export function AppearanceSection() {
  const { choice, setChoice } = useTheme();
  const id = useId();
  return (
    <section aria-labelledby={`${id}-heading`} className="space-y-2">
      <h2 id={`${id}-heading`} className="px-1 text-xs font-semibold uppercase tracking-wide text-muted-foreground">
        Appearance
      </h2>
      <fieldset className="rounded-2xl border border-border bg-background p-4">
        <legend className="sr-only">Theme</legend>
        <div className="flex items-center justify-between gap-3 pb-3">
          <span aria-hidden className="font-medium">
            Theme
          </span>
          <span className="text-right text-xs text-muted-foreground">System follows your device</span>
        </div>
        <div className="grid grid-cols-3 gap-1 rounded-xl bg-muted p-1">
          {OPTIONS.map(({ value, label, icon: Icon }) => (
            <label
              key={value}
              className={cn(
                'relative flex min-w-0 cursor-pointer items-center justify-center gap-1.5 rounded-lg px-2 py-2 pointer-coarse:min-h-11 text-sm font-medium text-muted-foreground transition-colors hover:text-foreground',
                'has-[:checked]:bg-background has-[:checked]:text-foreground has-[:checked]:shadow-sm dark:has-[:checked]:bg-accent',
                'has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-ring',
              )}
            >
              <input
                type="radio"
                name={`${id}-theme`}
                value={value}
                checked={choice === value}
                onChange={() => setChoice(value)}
                className="absolute inset-0 m-0 cursor-pointer appearance-none opacity-0"
              />
              <Icon className="size-4 shrink-0" aria-hidden />
              {label}
            </label>
          ))}
        </div>
      </fieldset>
    </section>
  );
}
