/** The SMTP path, against a real SMTP listener (smtp-server) on a loopback port. */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, startTestServer, type TestServer } from '../test/harness.ts';
import { parseEml } from './outbox.ts';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

describe('e-mail over SMTP', () => {
  const received: Received[] = [];
  let smtp: SMTPServer;
  let t: TestServer;

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const { port } = smtp.server.address() as AddressInfo;
    t = await startTestServer({
      env: {
        SMTP_URL: `smtp://127.0.0.1:${port}`,
        MAIL_FROM: 'Parley <no-reply@parley.test>',
        PUBLIC_URL: 'https://chat.parley.test',
      },
    });
  });

  afterAll(async () => {
    await t?.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  it('delivers the verification mail with a working link and writes no outbox', async () => {
    const { input } = await signUp(t, {});
    for (let i = 0; i < 100 && !received.some((m) => m.to.includes(input.email)); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const mail = received.find((m) => m.to.includes(input.email));
    expect(mail, 'mail received over SMTP').toBeDefined();
    expect(mail?.from).toBe('no-reply@parley.test');
    const parsed = parseEml(mail?.raw ?? '');
    expect(parsed.subject).toMatch(/Verify your e-mail/);
    const link = parsed.links.find((l) => l.startsWith('https://chat.parley.test/verify-email?token='));
    expect(link).toBeDefined();
    expect(t.outbox()).toEqual([]);

    const token = new URL(link as string).searchParams.get('token');
    const res = await t.client().post('/api/auth/verify-email', { token });
    expect(res.status).toBe(200);
    const user = await t.server.ctx.store.userByEmail(input.email);
    expect(user?.emailVerified).toBe(true);
  });
});
