/** `npm run dev`: the API server (restarting on change) and Vite's dev server with hot reload. */
import { spawn } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const children = [
  spawn(
    process.execPath,
    ['--watch-path=apps/server/src', '--watch-path=packages/protocol/src', 'apps/server/src/main.ts'],
    {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, PUBLIC_URL: process.env.PUBLIC_URL ?? 'http://localhost:5173' },
    },
  ),
  spawn('npm', ['run', 'dev', '--workspace', '@app/web'], { cwd: root, stdio: 'inherit' }),
];
const stop = () => {
  for (const c of children) c.kill('SIGTERM');
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
for (const c of children) c.on('exit', stop);
