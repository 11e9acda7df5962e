/**
 * The order a socket's updates leave in: each update once, in seq order, with no gap.
 * Update frames from the hub are deduplicated by seq against what was already sent; one
 * that skips a seq (another process's update overtook ours, or a pub/sub message was
 * lost) is held back while the gap is read from the update log. Before the welcome,
 * everything is held. Connection extends this (no extra object per socket).
 */
import { CLOSE, type DownFrame, type Update } from '@app/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { RealtimeDeps } from './deps.ts';

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
      void this.catchUp();
      return;
    }
    this.sendLogged(frame.seq, frame.update);
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
    const held = this.pending ?? [];
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
