import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { precompressDir } from '@app/server/precompress';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { emojiData } from './emoji-data.ts';
import { routeChunkGroups, routePreloads } from './route-preloads.ts';

/** Writes .br and .gz beside each built text file for the server to send (README: static files). */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'parley-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const made = precompressDir(outDir);
      const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
      // Where brotli did not beat gzip (br null), a br client is sent the gzip.
      const sum = (key: 'raw' | 'gzip' | 'br') => made.reduce((a, f) => a + (f[key] ?? f.gzip), 0);
      this.info(
        `precompressed ${made.length} files: ${kb(sum('raw'))} raw, ${kb(sum('gzip'))} gzip, ${kb(sum('br'))} br`,
      );
    },
  };
}

const routeChunks = routeChunkGroups();

export default defineConfig({
  plugins: [react(), tailwindcss(), routeChunks.plugin, routePreloads(), emojiData(), precompress()],
  // Always defined, so a normal build keeps neither the test-only null cipher's switch nor its
  // code (packages/e2ee/src/message.ts); on only in a build made with PARLEY_TEST_NULL_CIPHER=1.
  // The password KDF's floor (packages/e2ee/src/kdf.ts) is lowered only in a build made with
  // PARLEY_TEST_KDF_FLOOR (the browser tests' build, `npm run build:test`); undefined otherwise.
  define: {
    __PARLEY_TEST_NULL_CIPHER__: JSON.stringify(process.env.PARLEY_TEST_NULL_CIPHER === '1'),
    __PARLEY_TEST_KDF_FLOOR__: process.env.PARLEY_TEST_KDF_FLOOR
      ? JSON.stringify(Number(process.env.PARLEY_TEST_KDF_FLOOR))
      : 'undefined',
    // The browser tests' hooks (src/test-hooks.ts): in `npm run build:test`'s build only.
    __PARLEY_TEST_HOOKS__: JSON.stringify(process.env.PARLEY_TEST_HOOKS === '1'),
  },
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
    rolldownOptions: { output: { codeSplitting: { groups: routeChunks.groups } } },
  },
  server: {
    port: 5173,
    proxy: {
      '/api': 'http://127.0.0.1:3000',
      '/ws': { target: 'ws://127.0.0.1:3000', ws: true },
    },
  },
});
