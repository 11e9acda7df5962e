/** Reads the local outbox (DATA_DIR/outbox/*.eml): used by tests and handy for operators. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface OutboxMail {
  file: string;
  to: string;
  subject: string;
  text: string;
  links: string[];
}

function decodeQuotedPrintable(s: string): string {
  const bytes: number[] = [];
  const soft = s.replace(/=\r?\n/g, '');
  for (let i = 0; i < soft.length; i++) {
    const c = soft[i] as string;
    if (c === '=' && /^[0-9A-F]{2}$/i.test(soft.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      for (const byte of Buffer.from(c, 'utf8')) bytes.push(byte);
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function header(raw: string, name: string): string {
  const m = raw.match(new RegExp(`^${name}: (.*(?:\\n[ \\t].*)*)`, 'im'));
  return (m?.[1] ?? '').replace(/\n[ \t]+/g, ' ').trim();
}

/** Parses one .eml written by the outbox mailer: the plain-text part and its links. */
export function parseEml(raw: string, file = ''): OutboxMail {
  const normalized = raw.replace(/\r\n/g, '\n');
  const textPart = normalized.match(
    /Content-Type: text\/plain[^\n]*\n((?:[A-Za-z-]+: [^\n]*\n)*)\n([\s\S]*?)(?:\n--|$)/i,
  );
  const encoding = textPart?.[1]?.match(/Content-Transfer-Encoding: (\S+)/i)?.[1]?.toLowerCase() ?? '7bit';
  const body = textPart?.[2] ?? '';
  const text =
    encoding === 'quoted-printable'
      ? decodeQuotedPrintable(body)
      : encoding === 'base64'
        ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
        : body;
  return {
    file,
    to: header(normalized, 'To'),
    subject: header(normalized, 'Subject'),
    text,
    links: text.match(/https?:\/\/[^\s<>"]+/g) ?? [],
  };
}

/** Every mail in the outbox, oldest first. */
export function readOutbox(dataDir: string): OutboxMail[] {
  const dir = path.join(dataDir, 'outbox');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .sort()
    .map((f) => parseEml(readFileSync(path.join(dir, f), 'utf8'), f));
}
