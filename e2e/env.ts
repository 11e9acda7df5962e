import path from 'node:path';

export const E2E_PORT = Number(process.env.E2E_PORT ?? 3107);
export const E2E_BASE_URL = `http://127.0.0.1:${E2E_PORT}`;
export const E2E_DATA_DIR = path.resolve(path.dirname(new URL(import.meta.url).pathname), `.data-${E2E_PORT}`);
/** The shared e2e server's SQLite database. */
export const E2E_DB_FILE = path.join(E2E_DATA_DIR, 'parley.sqlite');
