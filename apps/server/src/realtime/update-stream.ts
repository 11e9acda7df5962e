/**
 * The order a socket's updates leave in: each update once, in seq order, with no gap.
 * Update frames from the hub are deduplicated by seq against what was already sent; one
 * that skips a seq is held back. Mostly another process's update is still on its way
 * through Redis (this process's own update, delivered at once, overtook it): the gap
 * waits GAP_WAIT_MS for it. What has not come by then (a lost pub/sub message, a process
 * that died between its commit and its publication) is read from the update log. Before
 * the welcome, everything is held. Connection extends this (no extra object per socket).
 */
import { CLOSE, type DownFrame, type Update } from '@app/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { RealtimeDeps } from './deps.ts';

/**
 * How long a gap waits for its updates from the hub before the log is read. The update that
 * left a gap was committed before the one beyond it (a user's seqs are taken under the
 * row lock of the user), so it is already on its way; waiting for it spares a database read
 * per overtaken update when two processes write to one user.
 */
export const GAP_WAIT_MS = 30;

type UpdateFrame = Extract<DownFrame, { t: 'update' }>;

/** A held frame's place: its seq (an update), or first (anything else). */
const seqOf = (f: DownFrame): number => (f.t === 'update' ? f.seq : 0);

export abstract class UpdateStream {
  abstract readonly userId: string;
  abstract readonly deps: RealtimeDeps;
  /** The socket's own logger (its user, connection and request). */
  abstract readonly log: FastifyBaseLogger;
  /** The last seq this socket was sent. */
  protected lastSentSeq = 0;
  /** Frames held back until the welcome or a catch-up has gone out. */
  protected pending: DownFrame[] | null = null;
  private catchingUp = false;
  /** Set while a gap waits for the hub (see GAP_WAIT_MS). */
  private gapTimer: ReturnType<typeof setTimeout> | null = null;

  /** Where the socket is: before its welcome (hold), ready (send), or closing (drop). */
  protected abstract phase(): 'hold' | 'send' | 'drop';
  /** Sends a logged update (as this socket may see it) and records it as sent. */
  protected abstract sendLogged(seq: number, update: Update): void;
  /** Sends a frame that is not a logged update. */
  protected abstract sendOther(frame: DownFrame): void;
  abstract close(code: number, reason: string): void;

  /** A frame from the hub. */
  protected deliver(frame: DownFrame): void {
    const phase = this.phase();
    if (phase === 'drop') return;
    if (phase === 'hold') {
      this.hold(frame);
      return;
    }
    if (frame.t !== 'update') {
      this.sendOther(frame);
      return;
    }
    if (frame.seq <= this.lastSentSeq) return;
    if (this.catchingUp || frame.seq > this.lastSentSeq + 1) {
      this.hold(frame);
      if (!this.catchingUp) this.awaitGap();
      return;
    }
    this.sendLogged(frame.seq, frame.update);
    if (this.gapTimer) this.sendHeldInOrder();
  }

  /** Reads the log unless the gap is filled from the hub within GAP_WAIT_MS. */
  private awaitGap(): void {
    this.gapTimer ??= setTimeout(() => {
      this.gapTimer = null;
      void this.catchUp();
    }, GAP_WAIT_MS);
  }

  /** After a frame filled a gap: the held updates that now follow on, in seq order. */
  private sendHeldInOrder(): void {
    const all = this.pending ?? [];
    const held = all.filter((f): f is UpdateFrame => f.t === 'update').sort((a, b) => a.seq - b.seq);
    let next = 0;
    for (const f of held) {
      if (f.seq > this.lastSentSeq + 1) break;
      if (f.seq === this.lastSentSeq + 1) this.sendLogged(f.seq, f.update);
      next += 1;
    }
    // (Only updates are held once the welcome is out; anything else stays held as it was.)
    const rest = [...all.filter((f) => f.t !== 'update'), ...held.slice(next)];
    this.pending = rest.length > 0 ? rest : null;
    if (!this.pending && this.gapTimer) {
      clearTimeout(this.gapTimer);
      this.gapTimer = null;
    }
  }

  protected hold(frame: DownFrame): void {
    if (this.pending) this.pending.push(frame);
    else this.pending = [frame];
  }

  /** Delivers what was held back (once the welcome has gone out). */
  protected release(): void {
    const held = this.pending ?? [];
    this.pending = null;
    for (const f of held) this.deliver(f);
  }

  /**
   * Sends what the update log holds after the last seq this socket sent, then the frames
   * held back meanwhile. Also run for every socket after the hub reconnects.
   */
  async catchUp(): Promise<void> {
    if (this.catchingUp || this.phase() !== 'send') return;
    if (this.gapTimer) {
      clearTimeout(this.gapTimer);
      this.gapTimer = null;
    }
    this.catchingUp = true;
    const before = this.lastSentSeq;
    try {
      const backlog = await this.deps.chat.updatesSince(this.userId, this.lastSentSeq);
      if (backlog === null) {
        // Pruned past our position: the client reconnects and reloads its state.
        this.close(CLOSE.goingAway, 'too far behind');
        return;
      }
      if (this.phase() !== 'send') return;
      let filled = 0;
      for (const u of backlog) {
        if (u.seq <= this.lastSentSeq) continue;
        this.sendLogged(u.seq, u.update);
        filled += 1;
      }
      this.deps.metrics.updateCatchUp.inc(filled);
    } catch (err) {
      this.log.warn({ err }, 'update catch-up failed');
    } finally {
      this.catchingUp = false;
    }
    // In seq order: an earlier update that came while the log was read goes first.
    const held = (this.pending ?? []).sort((a, b) => seqOf(a) - seqOf(b));
    this.pending = null;
    for (const f of held) {
      // The log had nothing new (the frame's update is not visible yet, or is gone): send
      // it as it is rather than wait for ever.
      if (f.t === 'update' && this.lastSentSeq === before && f.seq > this.lastSentSeq + 1) {
        this.sendLogged(f.seq, f.update);
      } else this.deliver(f);
    }
  }
}
