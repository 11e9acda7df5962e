/**
 * What a ChatClient tells where it runs (ClientEvents: the app's in chat-client-singleton.ts,
 * the tests' in src/test/chat-clients.ts), and what it takes from there (ClientEnv: the
 * browser's by default, Node's in tests).
 */
import type { BundleContents } from '@app/e2ee';
import type { AttachmentHttp } from './attachments/attachment-http';
import type { Revisions } from './crypto/revisions';
import type { AccountDataHttp, SeenStore } from './keys/account-data';
import type { LocalSealing } from './keys/local-keys';
import type { ClientNotice } from './notices';
import type { OutboxStore } from './outbox/outbox-store';
import type { SearchStore } from './search/search-store';
import type { SocketEnv } from './socket/socket-env';

export interface ClientEvents {
  /** Something the user should hear about, as what happened (the screens choose the words: notices.ts). */
  notice(notice: ClientNotice): void;
  blocked(): void;
  checkSession(): void;
  outdated(): void;
}

/** Where the client runs: the browser's by default (tests give Node's). */
export interface ClientEnv {
  socket?: SocketEnv;
  outboxStore?: OutboxStore;
  /** Where the search index is kept at rest (default: this browser's IndexedDB, sealed). */
  searchStore?: SearchStore;
  /** This account's private keys (default: this browser's copy, keys/local-keys.ts). */
  accountKeys?: () => Promise<BundleContents | null>;
  /** How the outbox keeps waiting messages at rest (default: sealed under this browser's key). */
  localSealing?: LocalSealing;
  /** The public settings (help link): fetched anew after a reconnect, changed live. */
  settings?: { refresh(): void; setHelpLink(helpLink: string | null): void };
  /** The highest revision seen of each message (default: this browser's, crypto/revisions.ts). */
  revisions?: Revisions;
  /** Where the account data is read and written (default: the app's HTTP API). */
  accountData?: AccountDataHttp;
  /** Where the browser keeps the highest version of it seen (default: localStorage). */
  accountDataSeen?: SeenStore;
  /** Where attachments are uploaded and downloaded (default: this origin). */
  attachmentHttp?: AttachmentHttp;
}
