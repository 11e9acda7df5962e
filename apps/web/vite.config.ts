import { fileURLToPath } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react(), tailwindcss()],
  // Always defined, so a normal build keeps neither the test-only null cipher's switch nor its
  // code (packages/e2ee/src/message.ts); on only in a build made with PARLEY_TEST_NULL_CIPHER=1.
  define: { __PARLEY_TEST_NULL_CIPHER__: JSON.stringify(process.env.PARLEY_TEST_NULL_CIPHER === '1') },
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
  },
  server: {
    port: 5173,
    proxy: {
      '/api': 'http://127.0.0.1:3000',
      '/ws': { target: 'ws://127.0.0.1:3000', ws: true },
    },
  },
});
