/**
 * The archive as a zip, built in the browser with fflate's streaming Zip: one JSON file per
 * area (profile, settings, contacts, chats with every message, notifications), one HTML page
 * per conversation and an index page linking them, and every photo and file opened into
 * `attachments/` (stored as they are: they are mostly compressed already).
 */
import type { AttachmentRef } from '@app/e2ee';
import { strToU8, Zip, ZipDeflate, ZipPassThrough } from 'fflate';
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
  const withoutKeys = (c: ArchiveChat) => ({
    ...c,
    page: pages.get(c),
    messages: c.messages.map((m) => (m.attachment ? { ...m, attachment: { ...m.attachment, ref: undefined } } : m)),
  });
  files.set('chats.json', json(a.chats.map(withoutKeys)));
  files.set('notifications.json', json(a.notifications));
  for (const c of a.chats) files.set(pages.get(c) as string, conversationHtml(a, c));
  return files;
}

/** Every attachment of the archive: where it goes in the zip, and how to open it. */
export function archiveAttachments(a: Archive): { file: string; ref: AttachmentRef }[] {
  return a.chats.flatMap((c) => c.messages.flatMap((m) => (m.attachment ? [m.attachment] : [])));
}

/**
 * The zip of `files` (deflated) and of the attachments opened with `open` (one that cannot
 * be opened is left out: the conversation pages still name it), streamed chunk by chunk into
 * one Blob's parts.
 */
export async function zipFiles(
  files: Map<string, string>,
  mtime: number,
  attachments: readonly { file: string; ref: AttachmentRef }[] = [],
  open: (ref: AttachmentRef) => Promise<Blob> = () => Promise.reject(new Error('no attachments')),
): Promise<Uint8Array[]> {
  const parts: Uint8Array[] = [];
  let done: () => void = () => {};
  let failed: (e: Error) => void = () => {};
  const finished = new Promise<void>((resolve, reject) => {
    done = resolve;
    failed = reject;
  });
  const zip = new Zip((err, chunk, final) => {
    if (err) return failed(err);
    parts.push(chunk);
    if (final) done();
  });
  for (const [path, text] of files) {
    const f = new ZipDeflate(path, { level: 6 });
    f.mtime = mtime;
    zip.add(f);
    f.push(strToU8(text), true);
  }
  for (const a of attachments) {
    const blob = await open(a.ref).catch(() => null);
    if (!blob) continue;
    const f = new ZipPassThrough(a.file);
    f.mtime = mtime;
    zip.add(f);
    f.push(new Uint8Array(await blob.arrayBuffer()), true);
  }
  zip.end();
  await finished;
  return parts;
}
