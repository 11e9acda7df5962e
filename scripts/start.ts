/**
 * `npm start`: builds the web app if it is missing or older than its sources, then
 * serves everything on PORT (default 3000) with embedded SQLite under ./data. npm runs it
 * with `exec` (package.json), so SIGTERM from npm (or a supervisor) reaches the server,
 * which drains and exits, and npm with it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const web = path.join(root, 'apps/web');
const built = path.join(web, 'dist/index.html');

function newest(dir: string): number {
  let t = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    t = Math.max(t, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

const sources = Math.max(
  newest(path.join(web, 'src')),
  newest(path.join(root, 'packages/protocol/src')),
  statSync(path.join(web, 'index.html')).mtimeMs,
);
// --help: the server prints its settings; nothing to build for that. Nor with WEB_DIST
// empty (the API alone, no web app served).
const noWeb = process.argv.includes('--help') || process.env.WEB_DIST === '';
if (!noWeb && (!existsSync(built) || statSync(built).mtimeMs < sources)) {
  console.log('Building the web app...');
  const r = spawnSync('npm', ['run', 'build', '--workspace', '@app/web'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
await import('../apps/server/src/main.ts');
