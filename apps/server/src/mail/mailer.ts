/**
 * Outgoing e-mail. With SMTP_URL, nodemailer delivers it. Without, every message is
 * rendered to an .eml file under DATA_DIR/outbox/ and its links are logged, so a local
 * install works with no mail server at all.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import nodemailer, { type Transporter } from 'nodemailer';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** A tag for logs and outbox file names: verify, reset, email-changed... */
  kind: string;
}

export interface Mailer {
  /** Queues a message; failures are logged, never thrown at the caller. */
  send(mail: Mail): void;
  /** Resolves when every queued message has been handed over. */
  drain(): Promise<void>;
  readonly mode: 'smtp' | 'outbox';
  readonly outboxDir: string | null;
}

export function createMailer(opts: {
  smtpUrl: string | null;
  from: string;
  dataDir: string;
  log: FastifyBaseLogger;
}): Mailer {
  const pending = new Set<Promise<void>>();
  let written = 0;
  const outboxDir = opts.smtpUrl ? null : path.join(opts.dataDir, 'outbox');
  if (outboxDir) mkdirSync(outboxDir, { recursive: true });
  const transport: Transporter = opts.smtpUrl
    ? nodemailer.createTransport(opts.smtpUrl)
    : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });

  async function deliver(mail: Mail): Promise<void> {
    const info = await transport.sendMail({
      from: opts.from,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
    });
    const links = mail.text.match(/https?:\/\/\S+/g) ?? [];
    if (outboxDir) {
      const safeTo = mail.to.replace(/[^A-Za-z0-9@._-]/g, '_');
      // Time, then a counter: unique and in order even within one millisecond.
      written += 1;
      const file = path.join(outboxDir, `${Date.now()}-${String(written).padStart(6, '0')}-${mail.kind}-${safeTo}.eml`);
      writeFileSync(file, (info as unknown as { message: Buffer }).message);
      opts.log.info(
        { mail: { to: mail.to, subject: mail.subject, kind: mail.kind, file, links } },
        'mail saved to outbox',
      );
    } else {
      opts.log.info({ mail: { to: mail.to, subject: mail.subject, kind: mail.kind } }, 'mail sent');
    }
  }

  return {
    mode: opts.smtpUrl ? 'smtp' : 'outbox',
    outboxDir,
    send(mail) {
      const p = deliver(mail)
        .catch((err: unknown) => {
          opts.log.error({ err, mail: { to: mail.to, kind: mail.kind } }, 'mail delivery failed');
        })
        .finally(() => pending.delete(p));
      pending.add(p);
    },
    async drain() {
      while (pending.size > 0) await Promise.all([...pending]);
      transport.close();
    },
  };
}
