/**
 * Fails when the wire protocol changes without a PROTOCOL_VERSION bump. What is hashed is
 * the protocol itself, not its source text: the JSON Schema of every schema the package
 * exports (the up and down frame unions, each request's result, every HTTP body and
 * answer) and the close codes. A reformat or a new comment changes nothing; a changed
 * field, limit or constant that reaches a schema does. After a deliberate change, bump
 * PROTOCOL_VERSION and pin the new hash printed by the failure.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as protocol from './index.ts';

/**
 * Versions 1–4 were pinned as hashes of the source text until the hash became the
 * schemas' (at version 4, whose wire did not change with it).
 */
const PINNED: Record<number, string> = {
  4: '78c981ef10ecab35',
  /** The close code 1011 (serverError): a handshake the server failed. */
  5: 'ac325f43c1d876d0',
  /**
   * End-to-end encryption's accounts (keys.ts): prelogin, `auth` instead of the password,
   * key bundles, upgrade-auth; the KDF in the public settings; `conflict`.
   */
  6: 'c0211c2b09dd88f6',
  /**
   * Sealed messages (sealed.ts): `ct` instead of `text` in send, edit, messages, chat
   * summaries (`last`), requests and `access.pending`; `keys` and `chatKeys`;
   * `rekey_required`, `recipient_no_keys`.
   */
  7: '02a610b25ffb7edc',
  /**
   * Every identity a user has had, in public keys (`identities`); the locked-history archive;
   * `merged` in PUT keys; `migrate` (legacy messages re-encrypted); `e2eeSince` in public settings;
   * the recovery bundle (GET, PUT, DELETE /api/me/keys/recovery).
   */
  8: '462c5c89078abf34',
  /**
   * A new message's update carries the summary it made (`chat`, without `last`): no `chat`
   * entry for a send. Web Push: /api/me/push (subscription, VAPID key) and what a push holds.
   */
  9: '79508aa2db58457b',
  /** "Download my data": GET /api/me/export and its NDJSON lines (export.ts). */
  10: '552d785ee1223a72',
  /**
   * Against a malicious server (issue 28): `delete` carries the sender's tombstone (`ct`);
   * the sealed account data (GET and PUT /api/me/account-data, the `accountData` update);
   * DELETE /api/account takes the password's `auth`.
   */
  11: 'dad8b3df01aae58e',
  /**
   * The e-mail address's own credential (`email` in every new credentials, `wrap` and
   * `sharedSalt` in the sign-in answer, PUT /api/me/email-login).
   */
  12: '1fbc9c3c6a51a516',
  /**
   * A user's own marks on a chat (chat-flags.ts): `pinnedAt`, `mutedUntil` and
   * `markedUnread` in chat summaries, `pinned`, `mute` and `markedUnread` in `chatFlags`;
   * "Where you're signed in" (sessions.ts, GET and DELETE /api/me/sessions).
   */
  13: 'a05722f2be089c71',
  /**
   * Reactions (reactions.ts): the `react` request and its result, the `reaction` update
   * (with the user's summary when it is activity for them), `reactions` in a history page,
   * and pushes for reactions (`t: 'reaction'`).
   */
  14: '4252d80a8283a376',
  /**
   * History pages read downwards (`after`) and around a message (`around`), with `hasNewer`
   * in every page: a jump far back loads the pages around the message, not every page between.
   * Attachments (attachments.ts): `attachments` in `send`, their upload and download paths,
   * `attachmentMaxBytes` in the public settings.
   */
  15: '6c5066fc96d1560a',
  /** `media` in `history`: a chat's messages that carry attachments, paged like the rest. */
  16: 'e85313216ab366d9',
  /**
   * Issue 32. Re-encryption after sign-in: `legacyOwn` pages one's own messages still in the
   * clear, with their count; `migrate` may bring the chat's next key (`chatKey`). Two-step
   * sign-in (two-factor.ts): the sign-in may answer `secondFactor`, its second step, the
   * account's ways (app, passkeys, recovery codes) and their error codes.
   */
  17: '3191c2ad408fa13c',
};

/** Every exported schema by name (the results' table entry by entry), as JSON Schema. */
function protocolSchemas(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const add = (name: string, schema: z.ZodType) => {
    out[name] = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', cycles: 'ref' });
  };
  for (const [name, value] of Object.entries(protocol)) {
    if (value instanceof z.ZodType) add(name, value);
  }
  for (const [kind, schema] of Object.entries(protocol.resultSchemas)) add(`result.${kind}`, schema);
  out.CLOSE = protocol.CLOSE;
  return out;
}

function protocolHash(): string {
  const schemas = protocolSchemas();
  const h = createHash('sha256');
  for (const name of Object.keys(schemas).sort()) h.update(`${name}\n${JSON.stringify(schemas[name])}\n`);
  return h.digest('hex').slice(0, 16);
}

describe('protocol version', () => {
  it('covers the frames, the results and the HTTP bodies', () => {
    const names = Object.keys(protocolSchemas());
    for (const name of [
      'upFrameSchema',
      'downFrameSchema',
      'result.send',
      'result.chatKeys',
      'ciphertextSchema',
      'meSchema',
      'signUpSchema',
    ]) {
      expect(names).toContain(name);
    }
    // Limits checked by refinements (text lengths in UTF-16 units) reach the hash too.
    expect(JSON.stringify(protocolSchemas().messageTextSchema)).toContain(`"x-utf16MaxLength":${protocol.MESSAGE_MAX}`);
  });

  it('is bumped whenever the wire schemas change', () => {
    expect(protocolHash(), `protocol changed: bump PROTOCOL_VERSION and pin ${protocolHash()}`).toBe(
      PINNED[protocol.PROTOCOL_VERSION],
    );
  });
});
