/**
 * What a browser does around sealed messages (docs/e2ee.md), for integration tests
 * that speak the wire format with the real cryptography of packages/e2ee: a person's
 * `Sealer` fetches public keys (`keys`) and chat keys (`chatKeys`) over one of their
 * sockets, makes a chat's next key when there is none or it is out of date, seals a text
 * as a message revision, and opens what the server relays. Every person signed up by the
 * harness has one (`Sealer.of(userId)`); a WsTestClient finds its person's by the welcome.
 */
import {
  type AccountKeys,
  type BundleContents,
  type ChatKeyEnvelope,
  type CryptoKey,
  createChatKey,
  decryptMessage,
  decryptReaction,
  encryptMessage,
  encryptReaction,
  encryptTombstone,
  importAccount,
  type MessageContent,
  type MessagePlace,
  messageHeader,
  openChatKey,
  type PublicKeys,
  participantsOf,
  reactionEpoch,
  verifyChatKey,
} from '@app/e2ee';
import { type ChatKeyEnvelopeWire, chatIdOf, type ResultData } from '@app/protocol';

/** A socket of the sealer's person (a WsTestClient): what it asks the server for keys over. */
export interface SealerSocket {
  request<K extends keyof ResultData>(t: K, body?: Record<string, unknown>): Promise<ResultData[K]>;
}

/** A sealed text as `send` carries it: the ciphertext, and the chat's next key when it brings one. */
export type Sealed = {
  ct: string;
  chatKey?: ChatKeyEnvelopeWire;
};

/** Anything that carries a sealed text: a message, a chat's newest message, a request's first. */
export interface SealedItem {
  chatId: string;
  /** The message id. */
  id: string;
  senderId: string;
  ct: string | null;
  /** The revision the server says it is (checked against the ciphertext when given). */
  rev?: number;
  legacyText?: string | null;
}

interface ChatState {
  /** Chat keys by epoch: those the server stores (opened), and one this person made that it accepted. */
  keys: Map<number, CryptoKey>;
  /** The newest epoch the server is known to store, and its envelope. */
  current: number | null;
  newest: ChatKeyEnvelope | null;
  /** A key this person made for the next epoch, not yet seen stored. */
  proposal: { envelope: ChatKeyEnvelope; key: CryptoKey } | null;
  /** The server said the current key is out of date: the next send makes the next one. */
  rekey: boolean;
}

const registry = new Map<string, Sealer>();

export class Sealer {
  readonly userId: string;
  /** The socket it asks over when none is given. */
  ws: SealerSocket | null = null;
  private account: Promise<AccountKeys>;
  private readonly keys = new Map<string, PublicKeys>();
  /** Every identity key seen per user (envelopes signed before a reset still verify). */
  private readonly pins = new Map<string, Set<string>>();
  private readonly chats = new Map<string, ChatState>();
  private readonly revs = new Map<string, number>();
  private readonly queues = new Map<string, Promise<void>>();

  constructor(userId: string, contents: BundleContents) {
    this.userId = userId;
    this.account = importAccount(contents, userId);
    // A failed import shows where the account is awaited, not as an unhandled rejection.
    this.account.catch(() => {});
  }

  /** The sealer of a signed-up person (made by the harness's signUp). */
  static of(userId: string): Sealer | undefined {
    return registry.get(userId);
  }

  /** Makes (or replaces) the sealer of `userId`, found later with `Sealer.of`. */
  static register(userId: string, contents: BundleContents): Sealer {
    const s = new Sealer(userId, contents);
    registry.set(userId, s);
    return s;
  }

  /**
   * The person's keys changed (a new encryption-key epoch, a new identity): seal and open
   * with these from now on, as a browser that just got them (chat keys fetched anew).
   */
  setContents(contents: BundleContents): void {
    this.account = importAccount(contents, this.userId);
    this.account.catch(() => {});
    this.keys.delete(this.userId);
    this.chats.clear();
  }

  /** The account keys (private halves, non-extractable). */
  accountKeys(): Promise<AccountKeys> {
    return this.account;
  }

  /**
   * Seals `text` as revision `rev` of message `msgId` to `peerId`, under the chat's current
   * key; when the chat has none yet (or `rekey` was called), under a new key for the next
   * epoch, returned as `chatKey` for the send to bring.
   */
  seal(peerId: string, msgId: string, text: string | MessageContent, rev = 0, ws = this.socket()): Promise<Sealed> {
    const chatId = chatIdOf(this.userId, peerId);
    return this.serial(chatId, () => this.sealNow(chatId, peerId, msgId, text, rev, ws));
  }

  private async sealNow(
    chatId: string,
    peerId: string,
    msgId: string,
    text: string | MessageContent,
    rev: number,
    ws: SealerSocket,
  ) {
    const st = this.state(chatId);
    if (st.current === null || st.proposal) await this.refresh(chatId, ws);
    const place = { chatId, msgId, senderId: this.userId, recipientId: peerId };
    // Under the current key (an edit before the chat has one: under the key its send brings).
    if (rev > 0 || (st.current !== null && !st.rekey && !st.proposal)) {
      if (st.current !== null) {
        const key = await this.keyNow(chatId, st.current, ws);
        return { ct: await encryptMessage(key, place, { epoch: st.current, rev }, text) };
      }
      if (!st.proposal) throw new Error(`no key to edit ${msgId} with: the chat has none`);
      return { ct: await encryptMessage(st.proposal.key, place, { epoch: st.proposal.envelope.epoch, rev }, text) };
    }
    if (!st.proposal) {
      const members = await this.keysOf([this.userId, peerId], ws);
      st.proposal = await createChatKey(await this.account, chatId, (st.current ?? 0) + 1, members);
    }
    const { envelope, key } = st.proposal;
    return { ct: await encryptMessage(key, place, { epoch: envelope.epoch, rev }, text), chatKey: envelope };
  }

  /** The sender's tombstone of message `msgId` (its revision `rev`), under the chat's current key. */
  tombstone(peerId: string, msgId: string, rev: number, ws = this.socket()): Promise<string> {
    const chatId = chatIdOf(this.userId, peerId);
    return this.serial(chatId, async () => {
      const st = this.state(chatId);
      if (st.current === null) await this.refresh(chatId, ws);
      if (st.current === null) throw new Error(`no key to delete ${msgId} with: the chat has none`);
      const key = await this.keyNow(chatId, st.current, ws);
      const place = { chatId, msgId, senderId: this.userId, recipientId: peerId };
      return encryptTombstone(key, place, { epoch: st.current, rev });
    });
  }

  /**
   * After `rekey_required`: fetches both people's current keys and the chat's keys again.
   * Unless the newest key is sealed to those (the peer made it meanwhile), the next seal
   * to `peerId` makes the next epoch's key, sealed to them.
   */
  rekey(peerId: string, ws = this.socket()): Promise<void> {
    const chatId = chatIdOf(this.userId, peerId);
    return this.serial(chatId, async () => {
      const people = await this.keysOf([this.userId, peerId], ws, true);
      const st = this.state(chatId);
      st.proposal = null;
      await this.refresh(chatId, ws);
      const sealedTo = (p: PublicKeys) =>
        st.newest?.seals.some((x) => x.userId === p.userId && x.ukEpoch === p.ukEpoch);
      st.rekey = people.length !== 2 || !people.every(sealedTo);
    });
  }

  /**
   * The text of a sealed item: its ciphertext opened with the chat's key (fetched when not
   * yet known), its legacy text, or null when it has neither (deleted, withheld) or holds
   * its sender's tombstone. Throws when the ciphertext does not open as this message
   * (another message's, another revision's, tampered with).
   */
  async open(item: SealedItem, ws = this.socket()): Promise<string | null> {
    if (item.ct === null) return item.legacyText ?? null;
    return (await this.openContent({ ...item, ct: item.ct }, ws)).text ?? null;
  }

  /** What a sealed message holds: its text with its reply reference and forwarded mark, or its deletion. */
  async openContent(item: SealedItem & { ct: string }, ws = this.socket()) {
    const [a, b] = participantsOf(item.chatId);
    const place: MessagePlace = {
      chatId: item.chatId,
      msgId: item.id,
      senderId: item.senderId,
      recipientId: item.senderId === a ? b : a,
    };
    const key = await this.keyFor(item.chatId, messageHeader(item.ct).epoch, ws);
    return decryptMessage(key, place, item.ct, item.rev === undefined ? {} : { rev: item.rev });
  }

  /** This person's reaction `emoji` to message `msgId` of `chatId`, sealed under the chat's newest key. */
  async sealReaction(chatId: string, msgId: string, emoji: string, ws = this.socket()): Promise<string> {
    await this.serial(chatId, () => this.refresh(chatId, ws));
    const epoch = this.state(chatId).current;
    if (epoch === null) throw new Error(`no chat key to react with in ${chatId}`);
    const key = await this.keyFor(chatId, epoch, ws);
    return encryptReaction(key, { chatId, msgId, reactorId: this.userId }, epoch, emoji);
  }

  /** The emoji of a sealed reaction (throws an E2EEAuthError when it does not open). */
  async openReaction(r: { chatId: string; msgId: string; userId: string; ct: string }, ws = this.socket()) {
    const key = await this.keyFor(r.chatId, reactionEpoch(r.ct), ws);
    return decryptReaction(key, { chatId: r.chatId, msgId: r.msgId, reactorId: r.userId }, r.ct);
  }

  /** The chat key of `epoch` (fetching the chat's keys when it is not known yet). */
  keyFor(chatId: string, epoch: number, ws = this.socket()): Promise<CryptoKey> {
    return this.serial(chatId, () => this.keyNow(chatId, epoch, ws));
  }

  private async keyNow(chatId: string, epoch: number, ws: SealerSocket): Promise<CryptoKey> {
    const st = this.state(chatId);
    if (!st.keys.has(epoch)) await this.refresh(chatId, ws);
    const key = st.keys.get(epoch);
    if (!key) throw new Error(`no chat key of epoch ${epoch} for ${chatId} opens for ${this.userId}`);
    return key;
  }

  /** The newest revision of a message this person is known to have sealed (0 if unknown). */
  revOf(chatId: string, msgId: string): number {
    return this.revs.get(`${chatId}/${msgId}`) ?? 0;
  }

  /** Notes that the server stores revision `rev` of a message (after a send or an edit). */
  stored(chatId: string, msgId: string, rev: number): void {
    this.revs.set(`${chatId}/${msgId}`, rev);
  }

  /** Forgets what it knows of a chat's keys (the next seal or open fetches them again). */
  forget(chatId: string): void {
    this.chats.delete(chatId);
  }

  /** Public keys of these users, fetched with `keys` (all of them when `fresh`), pinning their identities. */
  async keysOf(userIds: string[], ws = this.socket(), fresh = false): Promise<PublicKeys[]> {
    const missing = userIds.filter((id) => fresh || !this.keys.has(id));
    if (missing.length > 0) {
      for (const k of (await ws.request('keys', { userIds: missing })).keys) {
        this.keys.set(k.userId, k);
        const pins = this.pins.get(k.userId) ?? new Set<string>();
        pins.add(k.ik);
        this.pins.set(k.userId, pins);
      }
    }
    return userIds.flatMap((id) => {
      const k = this.keys.get(id);
      return k ? [k] : [];
    });
  }

  /** Fetches a chat's envelopes and opens those not known yet; settles a proposal either way. */
  private async refresh(chatId: string, ws: SealerSocket): Promise<void> {
    const st = this.state(chatId);
    const { chatKeys } = await ws.request('chatKeys', { chatId });
    for (const envelope of chatKeys) {
      if (st.keys.has(envelope.epoch)) continue;
      const mine = st.proposal?.envelope;
      if (mine && mine.epoch === envelope.epoch && mine.sig === envelope.sig) {
        st.keys.set(envelope.epoch, st.proposal?.key as CryptoKey);
        continue;
      }
      const key = await this.openEnvelope(envelope, ws);
      if (key) st.keys.set(envelope.epoch, key);
    }
    const newest = chatKeys.at(-1)?.epoch ?? null;
    if (newest !== null && newest !== st.current) {
      st.current = newest;
      st.newest = chatKeys.at(-1) ?? null;
      st.rekey = false;
    }
    // Stored (ours) or taken (by the peer's key for the same epoch): either way, no longer ours to bring.
    if (st.proposal && newest !== null && newest >= st.proposal.envelope.epoch) st.proposal = null;
  }

  /** Opens this person's seal of an envelope, checked against every identity its creator has had. */
  private async openEnvelope(envelope: ChatKeyEnvelope, ws: SealerSocket): Promise<CryptoKey | null> {
    if (!this.pins.has(envelope.creatorId)) await this.keysOf([envelope.creatorId], ws);
    const account = await this.account;
    if (!envelope.seals.some((s) => s.userId === this.userId && account.ukPrivate.has(s.ukEpoch))) return null;
    for (const ik of this.pins.get(envelope.creatorId) ?? []) {
      if (await verifyChatKey(envelope, ik)) return openChatKey(account, envelope, ik);
    }
    throw new Error(`the chat key of epoch ${envelope.epoch} of ${envelope.chatId} is not signed by its creator`);
  }

  /** Runs `f` after every earlier call on the same chat: concurrent sends share one fetch, one new key. */
  private async serial<T>(chatId: string, f: () => Promise<T>): Promise<T> {
    const before = this.queues.get(chatId) ?? Promise.resolve();
    const run = before.then(f);
    const settled = run.then(
      () => {},
      () => {},
    );
    this.queues.set(chatId, settled);
    try {
      return await run;
    } finally {
      if (this.queues.get(chatId) === settled) this.queues.delete(chatId);
    }
  }

  private state(chatId: string): ChatState {
    let st = this.chats.get(chatId);
    if (!st) {
      st = { keys: new Map(), current: null, newest: null, proposal: null, rekey: false };
      this.chats.set(chatId, st);
    }
    return st;
  }

  private socket(): SealerSocket {
    if (!this.ws) throw new Error(`the sealer of ${this.userId} has no socket: pass one`);
    return this.ws;
  }
}
