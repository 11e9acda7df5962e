import type { Migration } from 'kysely/migration';
import * as m001 from './001-initial.ts';
import * as m002 from './002-social.ts';
import * as m003 from './003-admin.ts';
import * as m004 from './004-lean-indexes.ts';
import * as m005 from './005-rate-limits.ts';
import * as m006 from './006-e2ee-keys.ts';
import * as m007 from './007-e2ee-messages.ts';
import * as m008 from './008-identity-history.ts';
import * as m009 from './009-push-subscriptions.ts';
import * as m010 from './010-import-ids.ts';
import * as m011 from './011-account-data.ts';
import * as m012 from './012-email-login.ts';
import * as m013 from './013-chat-flags.ts';
import * as m014 from './014-reactions.ts';
import * as m015 from './015-attachments.ts';
import * as m016 from './016-legacy-by-sender.ts';
import * as m017 from './017-two-factor.ts';
import * as m018 from './018-summaries-by-peer.ts';

/** Numbered migrations, applied in order at start-up. Never edit one that has shipped. */
export const migrations: Record<string, Migration> = {
  '001-initial': m001,
  '002-social': m002,
  '003-admin': m003,
  '004-lean-indexes': m004,
  '005-rate-limits': m005,
  '006-e2ee-keys': m006,
  '007-e2ee-messages': m007,
  '008-identity-history': m008,
  '009-push-subscriptions': m009,
  '010-import-ids': m010,
  '011-account-data': m011,
  '012-email-login': m012,
  '013-chat-flags': m013,
  '014-reactions': m014,
  '015-attachments': m015,
  '016-legacy-by-sender': m016,
  '017-two-factor': m017,
  '018-summaries-by-peer': m018,
};
