import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Button } from './ui/button';

/**
 * The round floating action button at the bottom right of a list screen: a link to another
 * screen, so in a navigation landmark of its own (outside <main>, it would be in none).
 */
export function FloatingLink({ to, label, children }: { to: string; label: string; children: ReactNode }) {
  return (
    <nav aria-label={label} className="pointer-events-none sticky bottom-0 flex justify-end p-5">
      <Button asChild size="icon" className="pointer-events-auto size-14 rounded-full shadow-lg [&_svg]:size-6">
        <Link to={to} aria-label={label}>
          {children}
        </Link>
      </Button>
    </nav>
  );
}
