/**
 * The composer's microphone (in place of Send while there is no text, as WhatsApp has it):
 * a click starts recording and the bar's Send stops and sends it; held down, it records
 * until released, then sends. While recording, a bar over the composer shows the time and
 * the live loudness, with Cancel (nothing is kept) and Send.
 */
import { Mic, SendHorizontal, Trash2 } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import type { PreparedFile } from '@/client/attachments/prepared-file';
import { Button } from '@/components/ui/button';
import { notifyError } from '@/components/ui/toaster';
import { formatDuration } from '@/lib/attachment-label';
import { VoiceRecording } from '@/lib/voice-recording';

/** Held longer than this, the button records until it is let go. */
const HOLD_MS = 600;
/** Shorter recordings are dropped (a tap that only meant to start). */
const MIN_MS = 500;

function LiveBars({ levels }: { levels: readonly number[] }) {
  const last = levels.slice(-40);
  return (
    <span aria-hidden className="flex h-6 min-w-0 flex-1 items-center gap-0.5 overflow-hidden">
      {last.map((l, i) => (
        <span
          // biome-ignore lint/suspicious/noArrayIndexKey: bars scroll by position
          key={i}
          className="w-1 shrink-0 rounded-full bg-primary"
          style={{ height: `${Math.max(12, l * 100)}%` }}
        />
      ))}
    </span>
  );
}

export function VoiceRecorder({ onRecorded }: { onRecorded(file: PreparedFile): void }) {
  const [recording, setRecording] = useState<VoiceRecording | null>(null);
  const [, setTick] = useState(0);
  const pressedAt = useRef(0);
  const live = useRef<VoiceRecording | null>(null);
  const mounted = useRef(true);

  useEffect(() => {
    if (!recording) return;
    const t = setInterval(() => setTick((n) => n + 1), 100);
    return () => clearInterval(t);
  }, [recording]);
  // Leaving the chat throws away what was being recorded (or is about to start).
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
      live.current?.cancel();
    };
  }, []);

  const start = async () => {
    if (live.current) return;
    try {
      const r = await VoiceRecording.start();
      // Gone while the browser asked for the microphone: it is let go at once.
      if (!mounted.current) {
        r.cancel();
        return;
      }
      live.current = r;
      setRecording(r);
    } catch {
      notifyError('Cannot record', 'Allow this site to use your microphone, then try again.');
    }
  };
  const finish = async (send: boolean) => {
    const r = live.current;
    if (!r) return;
    live.current = null;
    setRecording(null);
    if (!send || r.elapsedMs() < MIN_MS) {
      r.cancel();
      return;
    }
    onRecorded(await r.stop());
  };

  if (recording) {
    return (
      <fieldset
        className="absolute inset-0 z-10 m-0 flex min-w-0 items-center gap-2 border-0 bg-background p-3"
        aria-label="Recording a voice message"
      >
        <Button
          variant="ghost"
          size="icon"
          aria-label="Cancel recording"
          className="size-11 rounded-full"
          onClick={() => void finish(false)}
        >
          <Trash2 className="!size-5 text-destructive" aria-hidden />
        </Button>
        <span className="size-2.5 shrink-0 animate-pulse rounded-full bg-destructive" aria-hidden />
        <span className="w-12 shrink-0 tabular-nums text-sm" role="timer" aria-label="Recording time">
          {formatDuration(recording.elapsedMs())}
        </span>
        <LiveBars levels={recording.levels} />
        <Button
          size="icon"
          aria-label="Send voice message"
          className="size-11 shrink-0 rounded-full"
          onClick={() => void finish(true)}
        >
          <SendHorizontal className="!size-5" aria-hidden />
        </Button>
      </fieldset>
    );
  }
  return (
    <Button
      type="button"
      size="icon"
      aria-label="Record voice message"
      title="Record voice message (hold, or click to start)"
      className="size-11 shrink-0 rounded-full"
      onPointerDown={() => {
        pressedAt.current = performance.now();
        void start();
      }}
      onPointerUp={() => {
        // Held: sent on release. Clicked: the bar's Send sends it.
        if (performance.now() - pressedAt.current > HOLD_MS) void finish(true);
      }}
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          void start();
        }
      }}
    >
      <Mic className="!size-5" aria-hidden />
    </Button>
  );
}
