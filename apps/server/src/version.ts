/**
 * This release's version (the server package's), as /livez, /readyz, the backup manifest and
 * the `parley_build_info` metric report it. CHANGELOG.md names what each version changed.
 */
import { readFileSync } from 'node:fs';

export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
