import { focusTarget } from '@/hooks/use-route-focus';

/**
 * "Skip to main content": the page's first stop for the keyboard, shown only when focused;
 * it moves focus past the banners and the header to the screen's main part (its <main>,
 * focusable from script only, without a ring). A button, not a link to "#main": the router
 * would take the changed address for a new screen and move focus itself.
 */
export function SkipLink() {
  return (
    <button
      type="button"
      className="sr-only focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-[100] focus:rounded-lg focus:bg-background focus:px-4 focus:py-2 focus:text-sm focus:font-medium focus:text-foreground focus:shadow-lg focus:ring-2 focus:ring-ring"
      onClick={() => {
        const main = document.querySelector<HTMLElement>('main');
        if (main) focusTarget(main);
      }}
    >
      Skip to main content
    </button>
  );
}
