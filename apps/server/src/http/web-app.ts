import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { HttpError, sendError } from './errors.ts';

/**
 * The built web app: its files (hashed assets cached for a year, the rest revalidated)
 * and index.html for every other GET path; the API's 404 body for everything else.
 * Text files go as the .br or .gz the build wrote beside them (precompress.ts) when the
 * request accepts it (@fastify/static's preCompressed: Content-Encoding, the variant's own
 * length and ETag, Vary: Accept-Encoding on every file), else as they are.
 * A page whose first path segment has a shell of its own (routes/<segment>.html, made by
 * the build with modulepreload links for that screen's code) gets it instead of index.html.
 */
export async function registerWebApp(app: FastifyInstance, webDist: string | null): Promise<void> {
  const hasWeb = webDist !== null && existsSync(path.join(webDist, 'index.html'));
  if (hasWeb) {
    await app.register(fastifyStatic, {
      root: webDist,
      wildcard: false,
      index: false,
      preCompressed: true,
      // The variants are served in the files' place, never under their own names.
      allowedPath: (pathname) => !/\.(br|gz)$/i.test(pathname),
      setHeaders(res, file) {
        res.header(
          'cache-control',
          file.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
  } else {
    app.log.warn({ webDist }, 'web app not built: serving the API only (run npm run build)');
  }

  const shells = new Set(
    webDist !== null && hasWeb && existsSync(path.join(webDist, 'routes'))
      ? readdirSync(path.join(webDist, 'routes')).filter((f) => f.endsWith('.html'))
      : [],
  );
  /** The HTML shell for a page's path: its screen's own, else index.html. */
  const shellFor = (url: string): string => {
    const segment = /^\/([a-z][a-z-]*)(?:[/?#]|$)/.exec(url)?.[1];
    return segment && shells.has(`${segment}.html`) ? `routes/${segment}.html` : 'index.html';
  };

  app.setNotFoundHandler((req, reply) => {
    const isApi = req.url.startsWith('/api/') || req.url === '/api';
    // A missing built file (e.g. an old chunk asked for by a tab opened before a deploy) is a
    // real 404, never the app's HTML under a script's URL.
    const isAsset = req.url.startsWith('/assets/');
    if (!isApi && !isAsset && hasWeb && (req.method === 'GET' || req.method === 'HEAD')) {
      // The single-page app owns every other path, its own 404 included.
      return reply.header('cache-control', 'no-cache').sendFile(shellFor(req.url));
    }
    return sendError(reply, new HttpError(404, 'not_found', 'Not found'));
  });
}
