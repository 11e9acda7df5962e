import { ArrowLeft } from 'lucide-react';
import type * as React from 'react';
import { useLocation, useNavigate } from 'react-router';
import { focusLinkBackTo } from '@/hooks/use-route-focus';
import { cn } from '@/lib/utils';
import { usePane } from './layout/pane-context';
import { ScreenFrame, ScreenMain, useCardTop } from './layout/screen-frame';
import { Button } from './ui/button';

/**
 * The frame of every non-chat screen: a header with an optional back button and
 * a centred column that is full width on a phone and a card on a wide screen.
 */
export function PageShell({
  title,
  back,
  actions,
  children,
  className,
}: {
  title: React.ReactNode;
  /** A path, or 'history' to go to the previous page. */
  back?: string | 'history';
  actions?: React.ReactNode;
  children: React.ReactNode;
  className?: string;
}) {
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const pane = usePane();
  const cardTop = useCardTop();
  return (
    <ScreenFrame className={pane ? undefined : 'md:flex-none'}>
      <header
        className={cn(
          'sticky top-0 z-10 flex h-14 items-center gap-2 border-b border-border bg-background/95 px-2 backdrop-blur',
          cardTop,
        )}
      >
        {back ? (
          <Button
            variant="ghost"
            size="icon"
            aria-label="Back"
            onClick={() => {
              focusLinkBackTo(pathname);
              if (back === 'history') {
                if (window.history.length > 1) navigate(-1);
                else navigate('/');
              } else navigate(back);
            }}
          >
            <ArrowLeft />
          </Button>
        ) : (
          <span className="w-2" />
        )}
        <h1 className="flex-1 truncate text-lg font-semibold">{title}</h1>
        {actions}
      </header>
      <ScreenMain className={cn('flex-1 p-4 md:p-6', className)}>{children}</ScreenMain>
    </ScreenFrame>
  );
}
