/**
 * "Download my data": GET API.exportData streams, as NDJSON (protocol export.ts), everything
 * the server holds for the signed-in user and nobody else: the account, privacy settings,
 * contacts, notifications, and each chat with every message, oldest first, read from the
 * database a page at a time (no chat is held whole in memory). Messages go out as stored,
 * sealed: the browser opens them. What the socket would hide stays hidden here too (see
 * privacy-view.ts): a locked chat's text without a PIN grant, "read" on one's own messages
 * with read receipts off. Counted per account like the other costly requests.
 */
import { Readable } from 'node:stream';
import { API, EXPORT_CONTENT_TYPE, EXPORT_FORMAT, EXPORT_PAGE, type ExportLine } from '@app/protocol';
import type { FastifyInstance } from 'fastify';
import { type AppContext, authOf, requireAuth, toMe } from '../context.ts';
import { type PrivacyView, viewChat, viewMessage } from '../realtime/privacy-view.ts';
import { chatMessages, contactsOf, messageCountOf } from '../storage/accounts/export-store.ts';

export function registerExportRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { chat, social, pins, notices, config, throttle } = ctx;
  const auth = requireAuth(ctx);

  app.get(API.exportData, { preHandler: auth }, async (req, reply) => {
    const a = authOf(req);
    const userId = a.user.id;
    await throttle.take(`export:${userId}`, config.rateLimits.exportsPerAccount);
    const now = Date.now();
    const [privacy, pin, granted, chats, messages, contacts, notes] = await Promise.all([
      social.privacy(userId),
      pins.pinState(userId),
      pins.sessionGrant(a.tokenHash),
      chat.chats(userId),
      messageCountOf(chat.db, userId),
      contactsOf(chat.db, userId),
      notices.notifications(userId),
    ]);
    const view: PrivacyView = {
      userId,
      privacy,
      locked: new Set(chats.filter((c) => c.locked).map((c) => c.chatId)),
      granted: granted > now,
    };

    async function* lines(): AsyncGenerator<string> {
      const line = (l: ExportLine) => `${JSON.stringify(l)}\n`;
      yield line({
        kind: 'account',
        format: EXPORT_FORMAT,
        exportedAt: now,
        user: toMe(a.user, config),
        privacy,
        hasPin: pin.hash !== null,
        chats: chats.length,
        messages,
      });
      for (const c of contacts) yield line({ kind: 'contact', ...c });
      for (const item of notes.items) yield line({ kind: 'notification', item });
      let sent = 0;
      for (const c of chats) {
        yield line({ kind: 'chat', chat: viewChat(view, c), withheld: c.locked && !view.granted });
        for await (const page of chatMessages(chat.db, c.chatId, EXPORT_PAGE)) {
          sent += page.length;
          yield line({ kind: 'messages', chatId: c.chatId, messages: page.map((m) => viewMessage(view, m)) });
        }
      }
      yield line({ kind: 'end', chats: chats.length, messages: sent });
    }

    reply
      .header('content-type', EXPORT_CONTENT_TYPE)
      .header('cache-control', 'no-store')
      .header('content-disposition', 'attachment; filename="parley-export.ndjson"');
    return reply.send(Readable.from(lines(), { objectMode: false }));
  });
}
