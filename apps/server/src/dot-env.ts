/**
 * `.env` in the working directory, read by every entry point the same way (the server and
 * the admin CLI): its variables fill in what the environment does not set.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

/** Loads `.env` from `dir` if there is one; the file read, or null. */
export function loadDotEnv(dir = process.cwd()): string | null {
  const file = path.join(dir, '.env');
  if (!existsSync(file)) return null;
  process.loadEnvFile(file);
  return file;
}
