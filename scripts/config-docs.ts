/** `npm run config-docs`: rewrites .env.example and the README's configuration table from the table. */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { envExample, withReadmeTable } from '../apps/server/src/config-docs.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
writeFileSync(path.join(ROOT, '.env.example'), envExample());
const readme = path.join(ROOT, 'README.md');
writeFileSync(readme, withReadmeTable(readFileSync(readme, 'utf8')));
console.log('wrote .env.example and the README configuration table');
