/**
 * The keys a tab needs to seal and open messages (docs/e2ee.md): this account's
 * (from this browser's copy, local-keys.ts), people's public keys (the `keys` request,
 * each checked against its identity's signature) and each chat's keys (the `chatKeys`
 * request; an envelope is opened only if its creator's identity signed it). Chat keys are
 * opened once per chat and epoch and kept in memory, non-extractable.
 */
import type { AccountKeys, BundleContents, ChatKeyEnvelope, CryptoKey } from '@app/e2ee';
import { API, accountDataResponseSchema, chatIdOf, type PublicKeysWire } from '@app/protocol';
import { ApiError, api, apiJson } from '@/lib/api';
import { RequestError } from '../socket/chat-socket';
import { AccountData, type AccountDataHttp, type SeenStore } from './account-data';
import { loadE2ee } from './load-e2ee';
import { loadLocalKeys } from './local-keys';
import { type KeyRequests, PeerKeys } from './peer-keys';

export type { KeyRequests } from './peer-keys';

/** The account data over the app's HTTP API (the default; tests pass their own). */
export const apiAccountData: AccountDataHttp = {
  get: () => api(accountDataResponseSchema, 'GET', API.accountData),
  put: async (data, version) => {
    try {
      await apiJson('PUT', API.accountData, { data, version });
      return true;
    } catch (e) {
      if (e instanceof ApiError && e.status === 409) return false;
      throw e;
    }
  },
};

interface ChatState {
  envelopes: ChatKeyEnvelope[];
  opened: Map<number, CryptoKey>;
  /**
   * Keys this tab made and a send brought, by envelope signature: used once the server's
   * envelopes show that one was stored (a resend of a stored message is answered with the
   * stored message, and the key it brought is not stored).
   */
  made: Map<string, CryptoKey>;
  /** Envelopes (by signature) for which the creator's keys were fetched again once. */
  recheckedFor: Set<string>;
  fetched: Promise<void> | null;
  /** The envelopes' fetch under way, which callers that lack an epoch wait for rather than start another. */
  inflight: Promise<void> | null;
  /** Envelopes being opened (by signature): concurrent callers share one open. */
  opening: Map<string, Promise<CryptoKey | null>>;
}

/** A key to seal a new message under, and the envelope to send with it when it is new. */
export interface SendingKey {
  epoch: number;
  key: CryptoKey;
  chatKey?: ChatKeyEnvelope;
}

const NO_KEYS_HERE = 'This browser has no keys: sign in again to unlock your messages.';
/** What a send says when the server's copy of one's own keys is not this browser's. */
export const OWN_KEYS_DIFFER =
  "The server's copy of your encryption keys doesn't match this browser's, so nothing was sent. Sign out and sign in again; if this persists, the server may be tampering with your keys.";

export { loadE2ee } from './load-e2ee';

export class ChatKeys {
  private readonly userId: string;
  private readonly socket: KeyRequests;
  private account: Promise<AccountKeys | null> | null = null;
  private readonly chats = new Map<string, ChatState>();
  private readonly source: () => Promise<BundleContents | null>;
  /** The pins and verified marks this user's browsers share. */
  readonly data: AccountData;
  /** People's public keys as this user trusts them. */
  readonly peers: PeerKeys;

  constructor(
    userId: string,
    socket: KeyRequests,
    source?: () => Promise<BundleContents | null>,
    http: AccountDataHttp = apiAccountData,
    seen?: SeenStore,
  ) {
    this.userId = userId;
    this.socket = socket;
    this.source = source ?? (async () => (await loadLocalKeys(userId))?.contents ?? null);
    this.data = new AccountData(
      userId,
      async () => {
        const me = await this.me();
        return me ? { adk: me.adk, adkId: me.adkId } : null;
      },
      http,
      seen,
    );
    this.peers = new PeerKeys(userId, socket, this.data);
  }

  /** This account's keys in this browser, or null (none here: the password must unlock them). */
  me(): Promise<AccountKeys | null> {
    this.account ??= (async () => {
      const contents = await this.source();
      if (!contents) return null;
      return (await loadE2ee()).importAccount(contents, this.userId);
    })().catch(() => null);
    const held = this.account;
    void held.then((k) => {
      if (!k && this.account === held) this.account = null;
    });
    return held;
  }

  /** Calls `listener` with a person's id when a fetch finds their identity key changed. */
  onIdentityChange(listener: (userId: string) => void): () => void {
    return this.peers.onIdentityChange(listener);
  }

  /** Someone's public keys as this user trusts them (peer-keys.ts). */
  publicKeys(userId: string, fresh = false): Promise<PublicKeysWire | null> {
    return this.peers.publicKeys(userId, fresh);
  }

  private state(chatId: string): ChatState {
    let s = this.chats.get(chatId);
    if (!s) {
      s = {
        envelopes: [],
        opened: new Map(),
        made: new Map(),
        recheckedFor: new Set(),
        fetched: null,
        inflight: null,
        opening: new Map(),
      };
      this.chats.set(chatId, s);
    }
    return s;
  }

  /** Fetches the chat's envelopes (again when `fresh`). */
  private envelopes(chatId: string, fresh = false): Promise<void> {
    const s = this.state(chatId);
    if (fresh || !s.fetched) {
      const fetched = this.socket.request('chatKeys', { chatId }).then((r) => {
        s.envelopes = r.chatKeys;
      });
      s.fetched = fetched;
      s.inflight = fetched;
      fetched.then(
        () => {
          if (s.inflight === fetched) s.inflight = null;
        },
        () => {
          if (s.fetched === fetched) s.fetched = null;
          if (s.inflight === fetched) s.inflight = null;
        },
      );
    }
    return s.fetched as Promise<void>;
  }

  /**
   * The identity keys that may have signed an envelope of `creatorId`, current first:
   * one's own (with the earlier ones the bundle holds after an unlock), or the peer's as
   * the server lists them (a key made before their password reset is signed by an old one).
   */
  private async identitiesOf(creatorId: string, me: AccountKeys): Promise<string[]> {
    if (creatorId === this.userId) return [me.ikPublic, ...me.pastIks];
    const theirs = await this.publicKeys(creatorId);
    if (!theirs) return [];
    return [
      theirs.ik,
      ...theirs.identities
        .map((i) => i.ik)
        .filter((ik) => ik !== theirs.ik)
        .reverse(),
    ];
  }

  /** The key of `envelope`, opened once however many ask for it at the same time (a page of history, an export). */
  private open(s: ChatState, envelope: ChatKeyEnvelope): Promise<CryptoKey | null> {
    const cached = s.opened.get(envelope.epoch);
    if (cached) return Promise.resolve(cached);
    let p = s.opening.get(envelope.sig);
    if (!p) {
      const opening = this.openOnce(s, envelope).finally(() => {
        if (s.opening.get(envelope.sig) === opening) s.opening.delete(envelope.sig);
      });
      s.opening.set(envelope.sig, opening);
      p = opening;
    }
    return p;
  }

  private async openOnce(s: ChatState, envelope: ChatKeyEnvelope): Promise<CryptoKey | null> {
    const cached = s.opened.get(envelope.epoch);
    if (cached) return cached;
    const made = s.made.get(envelope.sig);
    if (made) {
      s.opened.set(envelope.epoch, made);
      return made;
    }
    const me = await this.me();
    if (!me) return null;
    const e2ee = await loadE2ee();
    const tryOpen = async () => {
      for (const ik of await this.identitiesOf(envelope.creatorId, me)) {
        const key = await e2ee.openChatKey(me, envelope, ik).catch(() => null);
        if (key) return key;
      }
      return null;
    };
    let key = await tryOpen();
    if (!key && envelope.creatorId !== this.userId && !s.recheckedFor.has(envelope.sig)) {
      // Signed by an identity this tab has not seen: the peer's keys may have changed since they were fetched.
      s.recheckedFor.add(envelope.sig);
      await this.publicKeys(envelope.creatorId, true).catch(() => null);
      key = await tryOpen();
    }
    // Only what opened is kept: a failure (keys not loaded yet, say) is tried again next time.
    if (key) s.opened.set(envelope.epoch, key);
    return key;
  }

  /**
   * True when the chat's key of `epoch` was sealed to one of this account's encryption
   * keys that this browser does not hold, older than its current one: a message from
   * before a password reset, locked until the old password unlocks those keys.
   */
  async locked(chatId: string, epoch: number): Promise<boolean> {
    const me = await this.me();
    const envelope = this.state(chatId).envelopes.find((e) => e.epoch === epoch);
    const seal = envelope?.seals.find((x) => x.userId === this.userId);
    return Boolean(me && seal && !me.ukPrivate.has(seal.ukEpoch) && seal.ukEpoch < me.ukEpoch);
  }

  /** Forgets every key and envelope (this account's keys changed: earlier ones were unlocked). */
  reset(): void {
    this.account = null;
    this.chats.clear();
    this.peers.forgetAll();
  }

  /** The chat's key of `epoch` (fetched when unknown), or null when it cannot be opened here. */
  async keyFor(chatId: string, epoch: number): Promise<CryptoKey | null> {
    const s = this.state(chatId);
    const has = () => s.envelopes.some((e) => e.epoch === epoch);
    // A fetch under way may bring it: wait for that one before asking again.
    // Its failure is its caller's to report; this only waits for it.
    if (!has() && s.inflight) await s.inflight.catch(() => {});
    if (!has()) await this.envelopes(chatId, s.fetched !== null);
    const envelope = s.envelopes.find((e) => e.epoch === epoch);
    return envelope ? this.open(s, envelope) : null;
  }

  /** Whether the chat has any key at all (a chat of messages from before encryption has none). */
  async hasKeys(chatId: string): Promise<boolean> {
    await this.envelopes(chatId);
    return this.state(chatId).envelopes.length > 0;
  }

  /** The newest key of a chat (edits are sealed under it), or null. */
  async newest(chatId: string): Promise<{ epoch: number; key: CryptoKey } | null> {
    await this.envelopes(chatId);
    const s = this.state(chatId);
    const envelope = s.envelopes.at(-1);
    const key = envelope ? await this.open(s, envelope) : null;
    return envelope && key ? { epoch: envelope.epoch, key } : null;
  }

  /** Refuses to seal anything to `peerId` the user has not accepted (peer-keys.ts assertSendable). */
  assertNotChanged(peerId: string, ik?: string): Promise<void> {
    return this.peers.assertSendable(peerId, ik);
  }

  /**
   * The key to send to `peerId` under: the chat's newest, when it is sealed to both
   * people's current keys; otherwise a new one for the next epoch (sent with the message).
   * One's own keys are this browser's (the bundle), never the server's copy: a server that
   * answered with keys of its own would receive the new chat key sealed to it. When its copy
   * is not the bundle's, nothing is sealed (the keys changed in another browser, or the
   * server lies). Throws when this browser has no keys or the peer has none.
   */
  async sendingKey(peerId: string): Promise<SendingKey> {
    const chatId = chatIdOf(this.userId, peerId);
    const [me, served, theirs] = await Promise.all([
      this.me(),
      this.publicKeys(this.userId),
      this.publicKeys(peerId),
      this.envelopes(chatId),
    ]);
    if (!me) throw new RequestError('forbidden', NO_KEYS_HERE);
    const e2ee = await loadE2ee();
    const mine = me.publicKeys;
    if (!served || !e2ee.samePublicKeys(served, mine)) {
      // Fetched again once: another browser may have changed them since this tab asked.
      const again = await this.publicKeys(this.userId, true);
      if (!again || !e2ee.samePublicKeys(again, mine)) throw new RequestError('forbidden', OWN_KEYS_DIFFER);
    }
    if (!theirs) throw new RequestError('recipient_no_keys', 'This person has not set up encryption yet.');
    await this.assertNotChanged(peerId, theirs.ik);
    const s = this.state(chatId);
    const newest = s.envelopes.at(-1);
    const current = (e: ChatKeyEnvelope) =>
      e.seals.every((x) => x.ukEpoch === (x.userId === this.userId ? mine.ukEpoch : theirs.ukEpoch));
    // Only a key its maker's current identity signed is sent under (not one an earlier identity signed).
    const makerIk = newest?.creatorId === this.userId ? me.ikPublic : theirs.ik;
    if (newest && current(newest) && (await e2ee.verifyChatKey(newest, makerIk))) {
      const key = await this.open(s, newest);
      if (key) return { epoch: newest.epoch, key };
    }
    const epoch = (newest?.epoch ?? 0) + 1;
    const made = await e2ee.createChatKey(me, chatId, epoch, [mine, theirs]);
    return { epoch, key: made.key, chatKey: made.envelope };
  }

  /**
   * The server answered a send that brought a key: keep the key, to be used once the
   * chat's envelopes (fetched again) show it was the one stored.
   */
  accepted(envelope: ChatKeyEnvelope, key: CryptoKey): void {
    const s = this.state(envelope.chatId);
    s.made.set(envelope.sig, key);
    s.fetched = null;
  }

  /** The server says the chat's keys moved on (another key won, or someone's keys changed). */
  invalidate(chatId: string, peerId: string): void {
    const s = this.chats.get(chatId);
    if (s) s.fetched = null;
    this.peers.forget(peerId);
    this.peers.forget(this.userId);
  }
}
