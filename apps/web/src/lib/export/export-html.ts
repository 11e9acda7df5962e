/**
 * A conversation of the archive as one readable HTML page: self-contained (inline CSS, no
 * script, no remote file), every text escaped (a message "<script>" shows as text), light
 * and dark after the reader's system (prefers-color-scheme), with the app's day lines
 * ('Today', 'Monday', 'November 3') as of the export, and the line where end-to-end
 * encryption began.
 */
import { DELETED_ACCOUNT } from '@app/protocol';
import { dayLabel, startOfDay } from '../day-label';
import { formatClock } from '../format-time';
import type { Archive, ArchiveChat, ArchiveMessage } from './export-read';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `s` safe as HTML text or a quoted attribute value. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

const STYLE = `
:root{color-scheme:light dark;--bg:#f1f5f9;--card:#fff;--text:#0f172a;--muted:#64748b;--line:#e2e8f0;
--me:#4f46e5;--me-text:#fff;--peer:#fff;--peer-text:#0f172a;--pill:#e0e7ff;--pill-text:#3730a3}
@media (prefers-color-scheme:dark){:root{--bg:#0f172a;--card:#1e293b;--text:#f1f5f9;--muted:#94a3b8;
--line:#334155;--me:#6366f1;--me-text:#fff;--peer:#1e293b;--peer-text:#f1f5f9;--pill:#312e81;--pill-text:#e0e7ff}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--text);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
header{position:sticky;top:0;background:var(--card);border-bottom:1px solid var(--line);padding:12px 16px}
header h1{margin:0;font-size:18px}
header nav{font-size:13px;margin-bottom:2px}
header p{margin:2px 0 0;color:var(--muted);font-size:13px}
main{max-width:760px;margin:0 auto;padding:12px 12px 32px}
ol{list-style:none;margin:0;padding:0}
.day,.mark{display:flex;justify-content:center;margin:14px 0 8px}
.day span,.mark span{background:var(--pill);color:var(--pill-text);border-radius:999px;padding:3px 12px;font-size:12px;font-weight:600}
.mark span{background:var(--card);color:var(--muted);border:1px solid var(--line);font-weight:500}
.msg{display:flex;margin:3px 0}
.msg.me{justify-content:flex-end}
.bubble{max-width:min(80%,560px);border-radius:18px;padding:7px 12px 5px;background:var(--peer);color:var(--peer-text);
box-shadow:0 1px 1px rgba(15,23,42,.08);overflow-wrap:anywhere}
.me .bubble{background:var(--me);color:var(--me-text)}
.who{display:block;font-size:12px;font-weight:600;color:var(--muted);margin:10px 4px 2px}
.who.me{text-align:right}
a{color:inherit}
.text{margin:0;white-space:pre-wrap}
.notice .text{font-style:italic;opacity:.8}
.meta{display:block;text-align:right;font-size:11px;opacity:.75;margin-top:2px}
.empty{color:var(--muted);text-align:center;margin:32px 0}
.row{display:flex;flex-wrap:wrap;gap:2px 12px;justify-content:space-between;align-items:baseline;background:var(--card);
border:1px solid var(--line);border-radius:12px;padding:10px 14px;margin:6px 0}
.row a{font-weight:600}
.row span{color:var(--muted);font-size:13px}
`;

function page(title: string, header: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><meta name="referrer" content="no-referrer">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><header>${header}</header><main>${body}</main></body></html>
`;
}

const STATUS: Record<ArchiveMessage['status'], string> = { sent: 'Sent', delivered: 'Delivered', read: 'Read' };

function bubble(m: ArchiveMessage): string {
  const meta = [
    `<time datetime="${m.sentAt}">${escapeHtml(formatClock(m.timestamp))}</time>`,
    ...(m.edited && !m.deleted ? ['edited'] : []),
    ...(m.fromMe && !m.deleted ? [STATUS[m.status]] : []),
  ].join(' · ');
  const file = m.attachment
    ? `<p class="file"><a href="../${encodeURI(m.attachment.file)}">${escapeHtml(
        `${m.attachment.kind === 'image' ? '📷' : '📎'} ${m.attachment.name || 'File'}`,
      )}</a></p>`
    : '';
  return `<li class="msg${m.fromMe ? ' me' : ''}${m.notice ? ' notice' : ''}"><div class="bubble">${file}<p class="text">${escapeHtml(
    m.text,
  )}</p><span class="meta">${meta}</span></div></li>`;
}

/** The title of a chat: the peer's name, or 'Deleted account'. */
export function chatTitle(c: ArchiveChat): string {
  return c.peer ? c.peer.name || `@${c.peer.username}` : DELETED_ACCOUNT;
}

/** The conversation's rows: day lines, who speaks when it changes, bubbles, the encryption line. */
function rows(c: ArchiveChat, exportedAt: number): string {
  const out: string[] = [];
  let day: number | null = null;
  let sender: string | null = null;
  let legacyBefore = false;
  for (const m of c.messages) {
    if (legacyBefore && !m.beforeEncryption) {
      out.push('<li class="mark"><span>🔒 Messages above were sent before end-to-end encryption</span></li>');
      sender = null;
    }
    legacyBefore = m.beforeEncryption;
    const d = startOfDay(m.timestamp);
    if (d !== day) {
      out.push(`<li class="day"><span>${escapeHtml(dayLabel(m.timestamp, exportedAt))}</span></li>`);
      day = d;
      sender = null;
    }
    if (m.senderId !== sender) {
      out.push(`<li class="who${m.fromMe ? ' me' : ''}">${escapeHtml(m.fromMe ? 'You' : m.from)}</li>`);
      sender = m.senderId;
    }
    out.push(bubble(m));
  }
  return out.join('\n');
}

/** The page of one conversation. */
export function conversationHtml(archive: Archive, c: ArchiveChat): string {
  const title = chatTitle(c);
  const handle = c.peer ? `@${c.peer.username}` : '';
  const exported = new Date(archive.exportedAt).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' });
  const facts = [
    handle,
    `${c.messages.length} message${c.messages.length === 1 ? '' : 's'}`,
    ...(c.archived ? ['archived'] : []),
    ...(c.locked ? ['locked'] : []),
    `exported by @${archive.user.username} on ${exported}`,
  ].filter((f) => f !== '');
  const header = `<nav><a href="../index.html">All conversations</a></nav><h1>${escapeHtml(title)}</h1><p>${escapeHtml(
    facts.join(' · '),
  )}</p>`;
  const body =
    c.messages.length === 0 ? '<p class="empty">No messages</p>' : `<ol>\n${rows(c, archive.exportedAt)}\n</ol>`;
  return page(`${title} · Parley`, header, body);
}

/** The archive's front page: every conversation, linked. */
export function indexHtml(archive: Archive, files: Map<ArchiveChat, string>): string {
  const items = archive.chats
    .map((c) => {
      const file = files.get(c) as string;
      const n = c.messages.length;
      const note = [
        ...(c.peer ? [`@${c.peer.username}`] : []),
        `${n} message${n === 1 ? '' : 's'}`,
        ...(c.archived ? ['archived'] : []),
        ...(c.locked ? ['locked'] : []),
      ].join(' · ');
      return `<li class="row"><a href="${escapeHtml(file)}">${escapeHtml(chatTitle(c))}</a><span>${escapeHtml(
        note,
      )}</span></li>`;
    })
    .join('\n');
  const header = `<h1>Parley export of @${escapeHtml(archive.user.username)}</h1><p>${escapeHtml(
    new Date(archive.exportedAt).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' }),
  )} · profile.json, settings.json, contacts.json, chats.json, notifications.json</p>`;
  return page('Parley export', header, items ? `<ol>${items}</ol>` : '<p class="empty">No chats</p>');
}
