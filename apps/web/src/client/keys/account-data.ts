/**
 * This user's account data in this tab (docs/e2ee.md, "Account data"): the pins and verified
 * marks every browser of the user shares, sealed under the account's data key and kept by
 * the server, which cannot read or forge them. Read once per tab and again when the log
 * says another tab or browser wrote a newer version; changed by compare-and-set (a lost
 * race reads again and applies the change again).
 *
 * Against a server that answers with older data (a rollback to before a verification, say):
 * this browser remembers the highest version it has seen and under which data key, across
 * sign-outs, and refuses less; data it cannot open under the same key is refused too. Data
 * sealed under another key (the account started a new identity after a password reset) is
 * set aside and begun again.
 */
import type { AccountDataContents, CryptoKey } from '@app/e2ee';
import { ACCOUNT_DATA_MAX, type AccountDataResponse } from '@app/protocol';
import { ApiError } from '@/lib/api';
import { logged } from '@/lib/log';
import { RequestError } from '../socket/chat-socket';
import { loadE2ee } from './load-e2ee';

/** How the tab reaches the server's copy (HTTP: the blob can be larger than a frame). */
export interface AccountDataHttp {
  get(): Promise<AccountDataResponse>;
  /** False when another tab or browser wrote `version` first. */
  put(data: string, version: number): Promise<boolean>;
}

/** The data key and its fingerprint (which identity's data key it is). */
export interface DataKey {
  adk: CryptoKey;
  adkId: string;
}

/** The highest version of the account data a browser has seen, and under which data key. */
export interface Seen {
  version: number;
  adkId: string;
}

/** Where a browser keeps what it has seen (localStorage, kept across sign-outs; tests share one in memory). */
export interface SeenStore {
  get(userId: string): Seen | null;
  set(userId: string, seen: Seen): void;
}

export const ACCOUNT_DATA_ROLLED_BACK =
  'The server sent older account data (pins and verified contacts) than this browser has seen, so it was refused. Nothing was sent.';
export const ACCOUNT_DATA_UNVERIFIED =
  'Your account data (pins and verified contacts) could not be verified, so it was refused. Nothing was sent.';

const seenKey = (userId: string) => `parley:account-data:${userId}`;

const UNREACHABLE = 'Your account data could not be reached. Check your connection and try again.';

/**
 * Runs a call to the server, a failure of which (the network, the server) is a RequestError:
 * what depends on the account data is then tried again later rather than taken as refused.
 */
async function reach<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof RequestError) throw e;
    // Refused (4xx): said as the server said it, and not tried again at once.
    if (e instanceof ApiError && e.status >= 400 && e.status < 500) throw new RequestError('forbidden', e.message);
    throw new RequestError('internal', UNREACHABLE);
  }
}

/** The higher of two versions seen under one data key (one seen under another key is not comparable). */
function higher(a: Seen | null, b: Seen | null): Seen | null {
  if (!a || !b || a.adkId !== b.adkId) return a ?? b;
  return a.version >= b.version ? a : b;
}

/** The highest version this browser has read or written for each user, in localStorage. */
export const localSeen: SeenStore = {
  get(userId) {
    try {
      const v = JSON.parse(localStorage.getItem(seenKey(userId)) ?? 'null') as Seen | null;
      return v && Number.isInteger(v.version) && typeof v.adkId === 'string' ? v : null;
    } catch {
      return null;
    }
  },
  set(userId, seen) {
    try {
      localStorage.setItem(seenKey(userId), JSON.stringify(seen));
    } catch {
      // storage unavailable: this tab still holds what it saw
    }
  },
};

interface State {
  version: number;
  contents: AccountDataContents;
}

export class AccountData {
  private readonly userId: string;
  private readonly key: () => Promise<DataKey | null>;
  private readonly http: AccountDataHttp;
  private readonly seenStore: SeenStore;
  private state: Promise<State> | null = null;
  /** The highest version this tab saw (for a browser without localStorage). */
  private seen: Seen | null = null;
  /** Updates of this tab, one after another (each reads what the one before wrote). */
  private updating: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<() => void>();

  constructor(userId: string, key: () => Promise<DataKey | null>, http: AccountDataHttp, seen: SeenStore = localSeen) {
    this.userId = userId;
    this.key = key;
    this.http = http;
    this.seenStore = seen;
  }

  /** Calls `listener` after the data changed (read anew, or written here). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The contents (read from the server once per tab); throws a RequestError when refused. */
  async read(): Promise<AccountDataContents> {
    return (await this.current()).contents;
  }

  /** The log says version `version` was written (by another tab or browser): read it when it is newer. */
  refresh(version: number): void {
    void this.current()
      .then((s) => {
        if (s.version >= version) return;
        this.state = null;
        return this.current().then(() => this.emit());
      })
      .catch(logged('account data', 'read a newer version'));
  }

  /**
   * Applies `change` (null: nothing to change) and stores the result as the next version;
   * another browser's write meanwhile is read and the change applied to it again.
   */
  update(change: (c: AccountDataContents) => AccountDataContents | null): Promise<void> {
    const next = this.updating.then(() => this.updateNow(change));
    // The caller hears of a failure through `next`; the queue goes on with the next change.
    this.updating = next.catch(() => {});
    return next;
  }

  private async updateNow(change: (c: AccountDataContents) => AccountDataContents | null): Promise<void> {
    for (let attempt = 0; attempt < 4; attempt++) {
      const now = await this.current();
      const next = change(now.contents);
      if (!next) return;
      const key = await this.dataKey();
      const version = now.version + 1;
      const sealed = await (await loadE2ee()).sealAccountData(key.adk, this.userId, version, next);
      if (sealed.length > ACCOUNT_DATA_MAX) {
        throw new RequestError('too_large', 'Your account data has grown past what the server keeps.');
      }
      if (await reach(() => this.http.put(sealed, version))) {
        this.state = Promise.resolve({ version, contents: next });
        this.saw({ version, adkId: key.adkId });
        this.emit();
        return;
      }
      this.state = null;
    }
    throw new RequestError('conflict', 'Your account data keeps changing in another browser. Try again.');
  }

  private current(): Promise<State> {
    if (!this.state) {
      const loading = this.load();
      this.state = loading;
      // A failure is tried again next time (the keys or the network may be back).
      loading.catch(() => {
        if (this.state === loading) this.state = null;
      });
    }
    return this.state;
  }

  private async dataKey(): Promise<DataKey> {
    const key = await this.key();
    if (!key) throw new RequestError('forbidden', 'This browser has no keys: sign in again to unlock your messages.');
    return key;
  }

  private async load(): Promise<State> {
    const [key, r, e2ee] = await Promise.all([this.dataKey(), reach(() => this.http.get()), loadE2ee()]);
    // The highest seen by any tab of this browser (the store) or this one (its memory).
    const seen = higher(this.seen, this.seenStore.get(this.userId));
    const sameKey = seen?.adkId === key.adkId;
    if (sameKey && seen && r.version < seen.version) throw new RequestError('forbidden', ACCOUNT_DATA_ROLLED_BACK);
    if (r.data === null) {
      if (sameKey && seen && seen.version > 0) throw new RequestError('forbidden', ACCOUNT_DATA_ROLLED_BACK);
      return { version: r.version, contents: e2ee.EMPTY_ACCOUNT_DATA };
    }
    const contents = await e2ee.openAccountData(key.adk, this.userId, r.version, r.data).catch(() => null);
    if (!contents) {
      // Under the key this browser saw it sealed with: tampered with. Under another: the account
      // started a new identity since (a password reset), and its data begins again.
      if (sameKey) throw new RequestError('forbidden', ACCOUNT_DATA_UNVERIFIED);
      return { version: r.version, contents: e2ee.EMPTY_ACCOUNT_DATA };
    }
    this.saw({ version: r.version, adkId: key.adkId });
    return { version: r.version, contents };
  }

  private saw(seen: Seen): void {
    const stored = this.seenStore.get(this.userId);
    const best = stored && stored.adkId === seen.adkId && stored.version >= seen.version ? stored : seen;
    const mine = this.seen;
    this.seen = mine && mine.adkId === best.adkId && mine.version > best.version ? mine : best;
    if (best !== stored) this.seenStore.set(this.userId, best);
  }

  private emit(): void {
    for (const l of [...this.listeners]) l();
  }
}
