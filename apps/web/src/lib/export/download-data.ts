/**
 * "Download my data", loaded with import() only when the user asks for it (the first
 * screens never carry it or fflate): fetches the server's stream of the account's data,
 * opens every message in this tab (readArchive), builds the zip (export-zip.ts) and hands
 * it to the browser as parley-export-<handle>-<date>.zip. Plaintext stays in this tab.
 */
import type { AttachmentRef } from '@app/e2ee';
import { API, type Me } from '@app/protocol';
import { ApiError, refusalOf } from '../api';
import { ndjsonLines, type Opener, readArchive } from './export-read';
import { archiveAttachments, archiveFiles, exportFileName, zipFiles } from './export-zip';

/** 0–100: reading and opening the messages is most of it, the zip the rest. */
export type Progress = (percent: number) => void;

const READ_SHARE = 90;

/** What a download made: the file's name, and how many locked chats it left out (no PIN grant). */
export interface ExportResult {
  fileName: string;
  withheldChats: number;
}

/** The archive's zip, built here, its file name and the locked chats left out. */
export async function buildExport(
  me: Me,
  open: Opener,
  progress: Progress,
  files: (ref: AttachmentRef) => Promise<Blob>,
): Promise<{ blob: Blob } & ExportResult> {
  progress(0);
  let res: Response;
  try {
    res = await fetch(API.exportData, { credentials: 'same-origin', headers: { accept: 'application/x-ndjson' } });
  } catch {
    throw new ApiError(0, {
      error: 'internal',
      message: 'Cannot reach the server. Check your connection and try again.',
    });
  }
  if (!res.ok || !res.body) throw await refusalOf(res);
  const archive = await readArchive(ndjsonLines(res.body), me, open, ({ messages, total }) =>
    progress(total === 0 ? READ_SHARE : Math.floor((messages / total) * READ_SHARE)),
  );
  const parts = await zipFiles(archiveFiles(archive), archive.exportedAt, archiveAttachments(archive), files);
  progress(100);
  return {
    blob: new Blob(parts as BlobPart[], { type: 'application/zip' }),
    fileName: exportFileName(archive.user.username, archive.exportedAt),
    withheldChats: archive.chats.filter((c) => c.withheld).length,
  };
}

/** Builds the export and saves it through the browser's download. */
export async function downloadMyData(
  me: Me,
  open: Opener,
  progress: Progress,
  files: (ref: AttachmentRef) => Promise<Blob>,
): Promise<ExportResult> {
  const { blob, fileName, withheldChats } = await buildExport(me, open, progress, files);
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return { fileName, withheldChats };
}
