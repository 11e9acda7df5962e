/**
 * A socket's typing indicators: volatile (never logged), sent only to users who exist,
 * are not blocked and take this user's messages, and cleared when a message goes out or
 * the socket closes.
 */
import type { RealtimeDeps } from './deps.ts';

export class Typing {
  private readonly userId: string;
  private readonly deps: RealtimeDeps;
  // Created on first use: most sockets never type, and each empty one costs a hash table.
  /** Who this socket is typing to now. */
  private to: Set<string> | null = null;
  /** Targets already checked (whether they may be told). */
  private targets: Map<string, boolean> | null = null;

  constructor(userId: string, deps: RealtimeDeps) {
    this.userId = userId;
    this.deps = deps;
  }

  /** Whether `to` may be told that this user is typing (checked once, then remembered). */
  private async allowed(to: string): Promise<boolean> {
    this.targets ??= new Map();
    let ok = this.targets.get(to);
    if (ok === undefined) {
      const target = await this.deps.store.userById(to);
      ok = target !== null && !target.blocked && (await this.deps.social.access(this.userId, to)).state === 'open';
      if (this.targets.size > 1000) this.targets.clear();
      this.targets.set(to, ok);
    }
    return ok;
  }

  /** The user started or stopped typing to `to`. */
  async set(to: string, typing: boolean): Promise<void> {
    if (to === this.userId || !(await this.allowed(to))) return;
    if (typing) {
      this.to ??= new Set();
      this.to.add(to);
    } else this.to?.delete(to);
    this.tell(to, typing);
  }

  /** A message went to `to`: typing to them has stopped. */
  sent(to: string): void {
    if (this.to?.delete(to)) this.tell(to, false);
  }

  /** Whether `peerId` may be told changed: ask again next time. */
  accessChanged(peerId: string): void {
    this.targets?.delete(peerId);
  }

  /** The socket closed: everyone it was typing to hears it stopped. */
  stopAll(): void {
    for (const to of this.to ?? []) this.tell(to, false);
    this.to = null;
  }

  private tell(to: string, typing: boolean): void {
    this.deps.hub.publish(to, { t: 'typing', from: this.userId, typing });
  }
}
