/**
 * Parley's service worker: the app opens without a network, and Web Push shows "New
 * message from @bob" while no tab is open.
 *
 * Caching (the API and the WebSocket are never cached: they are the user's data):
 *  - pages: from the network, else the app shell kept from the last visit, so the app
 *    starts offline and shows its own offline state;
 *  - /assets/*: hashed and immutable, kept once fetched (cache first);
 *  - other files of the app (icons, the manifest): the cached copy at once, refreshed behind.
 * A new deploy's worker takes over at the next start; old caches go with the old worker.
 */
const VERSION = 'v1';
const SHELL = `parley-shell-${VERSION}`;
const ASSETS = `parley-assets-${VERSION}`;
const FILES = `parley-files-${VERSION}`;
const KEEP = [SHELL, ASSETS, FILES];

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(SHELL);
      await cache.add(new Request('/', { cache: 'reload' }));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (!KEEP.includes(name)) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

/** Every page is the single-page app's shell: refreshed on each visit, served from cache offline. */
async function page(request) {
  try {
    const response = await fetch(request);
    if (response.ok && response.headers.get('content-type')?.includes('text/html')) {
      const cache = await caches.open(SHELL);
      await cache.put('/', response.clone());
    }
    return response;
  } catch (err) {
    const shell = await caches.match('/', { cacheName: SHELL });
    if (shell) return shell;
    throw err;
  }
}

async function cacheFirst(request) {
  const cached = await caches.match(request, { cacheName: ASSETS });
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok) {
    const cache = await caches.open(ASSETS);
    await cache.put(request, response.clone());
  }
  return response;
}

async function staleWhileRevalidate(event) {
  const cache = await caches.open(FILES);
  const cached = await cache.match(event.request);
  const fresh = fetch(event.request).then(async (response) => {
    if (response.ok) await cache.put(event.request, response.clone());
    return response;
  });
  if (cached) {
    event.waitUntil(fresh.catch(() => undefined));
    return cached;
  }
  return fresh;
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith('/api/') || url.pathname === '/ws' || url.pathname === '/sw.js') return;
  if (request.mode === 'navigate') event.respondWith(page(request));
  else if (url.pathname.startsWith('/assets/')) event.respondWith(cacheFirst(request));
  else if (url.pathname.startsWith('/icons/') || url.pathname.endsWith('.webmanifest') || url.pathname.endsWith('.svg'))
    event.respondWith(staleWhileRevalidate(event));
});

/** A push names who wrote or reacted (or no one, for a locked chat), never what: the server has no text. */
self.addEventListener('push', (event) => {
  let data = null;
  try {
    data = event.data ? event.data.json() : null;
  } catch {
    data = null;
  }
  if (!data || (data.t !== 'message' && data.t !== 'reaction') || typeof data.peerId !== 'string') return;
  const from = typeof data.from === 'string' ? data.from : null;
  const title =
    data.t === 'reaction'
      ? from
        ? `${from} reacted to your message`
        : 'New reaction'
      : from
        ? `New message from ${from}`
        : 'New message';
  event.waitUntil(
    self.registration.showNotification(title, {
      tag: `chat-${data.peerId}`,
      renotify: true,
      icon: '/icons/icon-192.png',
      badge: '/icons/maskable-192.png',
      data: { url: `/chat/${encodeURIComponent(data.peerId)}` },
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const target = new URL(event.notification.data?.url ?? '/home', self.location.origin).href;
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      for (const w of windows) {
        if (new URL(w.url).origin === self.location.origin) {
          await w.focus();
          return w.navigate(target);
        }
      }
      return self.clients.openWindow(target);
    })(),
  );
});
