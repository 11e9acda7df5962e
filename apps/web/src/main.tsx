// First: zod's JIT off before any schema is built (see zod-jitless.ts).
import './zod-jitless';
import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { App } from './app';
import { registerServiceWorker } from './lib/service-worker';
import { refreshSession } from './lib/session';
import { startTheme } from './lib/theme';
import './index.css';

// The remembered theme on <html> before React renders (the CSP allows no inline script in
// index.html, and every import above runs without a paint in between): no flash of the other one.
startTheme();

// After a deploy, an open tab may ask for a screen's chunk that no longer exists:
// reload once to pick up the new build instead of showing a blank screen.
window.addEventListener('vite:preloadError', (event) => {
  const key = 'parley:reloaded-for-chunk';
  if (sessionStorage.getItem(key)) return;
  sessionStorage.setItem(key, '1');
  event.preventDefault();
  window.location.reload();
});
window.addEventListener('load', () => setTimeout(() => sessionStorage.removeItem('parley:reloaded-for-chunk'), 10_000));

registerServiceWorker();

// The browser tests' build only (vite.config.ts): see test-hooks.ts. Compiled out elsewhere.
declare const __PARLEY_TEST_HOOKS__: boolean;
if (__PARLEY_TEST_HOOKS__) void import('./test-hooks');

// Who is signed in, asked now rather than after the first render (App asks too: one request).
void refreshSession();

const root = document.getElementById('root');
if (!root) throw new Error('#root missing');
const app = createRoot(root);
startTransition(() =>
  app.render(
    <StrictMode>
      <BrowserRouter useTransitions={false}>
        <App />
      </BrowserRouter>
    </StrictMode>,
  ),
);
