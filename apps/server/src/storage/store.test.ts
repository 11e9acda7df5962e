import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chatStoreContract } from './chat-store.contract.ts';
import { openDb } from './db.ts';
import { storeContract } from './store.contract.ts';

storeContract('SQLite (file, WAL)', () => openDb({ dataDir: mkdtempSync(path.join(tmpdir(), 'parley-store-')) }));
chatStoreContract('SQLite (file, WAL)', () => openDb({ dataDir: mkdtempSync(path.join(tmpdir(), 'parley-chat-')) }));
