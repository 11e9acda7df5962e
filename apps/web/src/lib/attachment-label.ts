/**
 * How an attachment is named where there is no room for it: the chat list's preview, a
 * reply's quote, a notification ("📷 Photo", "📎 report.pdf", "🎤 Voice message (0:12)"),
 * with the caption after it when there is one; and a file's size as people read it.
 */
import type { AttachmentRef } from '@app/e2ee';
import type { Shown } from '@/client/crypto/message-crypto';
import { shownText } from '@/client/crypto/message-crypto';

/** m:ss (h:mm:ss past an hour). */
export function formatDuration(ms: number): string {
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

export function attachmentLabel(a: AttachmentRef): string {
  if (a.kind === 'image') return '📷 Photo';
  if (a.kind === 'voice') return `🎤 Voice message (${formatDuration(a.durationMs ?? 0)})`;
  return `📎 ${a.name || 'File'}`;
}

/** A photo's alternative text: its caption, or "Photo from @bob" (`sender`: '@bob' or 'you'). */
export function photoAlt(caption: string, sender: string): string {
  return caption.trim() || `Photo from ${sender}`;
}

/** What a preview says of `s`: its text, or its attachment's label and caption. */
export function previewText(s: Shown | null): string {
  const first = s?.kind === 'text' ? s.attachments?.[0] : undefined;
  if (!first || s?.kind !== 'text') return shownText(s);
  const caption = s.text.trim();
  if (!caption) return attachmentLabel(first);
  return first.kind === 'file' ? `📎 ${caption}` : `${attachmentLabel(first).split(' ')[0]} ${caption}`;
}

/** 1.2 MB, 340 KB, 12 bytes (decimal units, as file managers show them). */
export function formatBytes(n: number): string {
  if (n < 1000) return `${n} ${n === 1 ? 'byte' : 'bytes'}`;
  const units = ['KB', 'MB', 'GB'];
  let v = n / 1000;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u += 1;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}
