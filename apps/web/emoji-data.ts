/**
 * The emoji picker's data (emojibase-data, English): emitted into the build at
 * /emojibase/en/{data,messages}.json and served so by the dev server, for the picker to
 * fetch from Parley's own origin (frimousse's `emojibaseUrl`) rather than from a CDN: a
 * self-hosted server's pages load nothing from elsewhere (the CSP allows 'self' only).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Plugin } from 'vite';

const FILES = ['data', 'messages'] as const;
const dir = path.join(path.dirname(createRequire(import.meta.url).resolve('emojibase-data/package.json')), 'en');

export function emojiData(): Plugin {
  return {
    name: 'parley-emoji-data',
    generateBundle() {
      for (const f of FILES) {
        this.emitFile({
          type: 'asset',
          fileName: `emojibase/en/${f}.json`,
          source: readFileSync(path.join(dir, `${f}.json`)),
        });
      }
    },
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const m = /^\/emojibase\/en\/(data|messages)\.json$/.exec(req.url ?? '');
        if (!m) return next();
        res.setHeader('content-type', 'application/json');
        res.end(readFileSync(path.join(dir, `${m[1]}.json`)));
      });
    },
  };
}
