/**
 * The archive as a zip, built in the browser with fflate's streaming Zip: one JSON file per
 * area (profile, settings, contacts, chats with every message, notifications), one HTML page
 * per conversation and an index page linking them.
 */
import { strToU8, Zip, ZipDeflate } from 'fflate';
import { conversationHtml, indexHtml } from './export-html';
import type { Archive, ArchiveChat } from './export-read';

/** parley-export-<handle>-<YYYY-MM-DD>.zip (the local date of the export). */
export function exportFileName(handle: string, at: number): string {
  const d = new Date(at);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `parley-export-${handle}-${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}.zip`;
}

/** A file name for each conversation page: the peer's handle, unique within the archive. */
export function conversationFiles(chats: readonly ArchiveChat[]): Map<ArchiveChat, string> {
  const taken = new Set<string>();
  const out = new Map<ArchiveChat, string>();
  for (const c of chats) {
    const base = (c.peer ? c.peer.username : `deleted-account-${c.peerId.slice(0, 6)}`).replace(/[^A-Za-z0-9_-]/g, '_');
    let name = base;
    for (let i = 2; taken.has(name); i++) name = `${base}-${i}`;
    taken.add(name);
    out.set(c, `conversations/${name}.html`);
  }
  return out;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Every file of the archive, by path. */
export function archiveFiles(a: Archive): Map<string, string> {
  const files = new Map<string, string>();
  const pages = conversationFiles(a.chats);
  files.set('index.html', indexHtml(a, pages));
  files.set('profile.json', json({ format: 1, exportedAt: new Date(a.exportedAt).toISOString(), account: a.user }));
  files.set('settings.json', json({ privacy: a.privacy, chatPinSet: a.hasPin }));
  files.set('contacts.json', json(a.contacts));
  files.set('chats.json', json(a.chats.map((c) => ({ ...c, page: pages.get(c) }))));
  files.set('notifications.json', json(a.notifications));
  for (const c of a.chats) files.set(pages.get(c) as string, conversationHtml(a, c));
  return files;
}

/** The zip of `files` (deflated, streamed chunk by chunk into one Blob's parts). */
export function zipFiles(files: Map<string, string>, mtime: number): Promise<Uint8Array[]> {
  return new Promise((resolve, reject) => {
    const parts: Uint8Array[] = [];
    const zip = new Zip((err, chunk, final) => {
      if (err) return reject(err);
      parts.push(chunk);
      if (final) resolve(parts);
    });
    for (const [path, text] of files) {
      const f = new ZipDeflate(path, { level: 6 });
      f.mtime = mtime;
      zip.add(f);
      f.push(strToU8(text), true);
    }
    zip.end();
  });
}
