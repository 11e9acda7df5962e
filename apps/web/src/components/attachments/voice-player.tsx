/**
 * A voice message in its bubble: play and pause, its waveform (sealed with it) as the
 * position, a slider to seek (keyboard too), the time, and the speed (1×, 1.5×, 2×). The
 * recording is downloaded and opened when first played.
 */
import type { AttachmentRef } from '@app/e2ee';
import { fromBase64Url } from '@app/e2ee/bytes';
import { Pause, Play } from 'lucide-react';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useChatClient } from '@/hooks/chat-hooks';
import { formatDuration } from '@/lib/attachment-label';
import { cn } from '@/lib/utils';

const SPEEDS = [1, 1.5, 2] as const;
const BARS = 32;

/** The sealed waveform as BARS heights (0 to 1); flat when there is none. */
function barsOf(waveform: string | undefined): number[] {
  let bytes: Uint8Array = new Uint8Array(0);
  try {
    bytes = waveform ? fromBase64Url(waveform) : bytes;
  } catch {
    // A waveform that does not read: flat bars.
  }
  return Array.from({ length: BARS }, (_, i) =>
    bytes.length === 0 ? 0.2 : (bytes[Math.floor((i * bytes.length) / BARS)] ?? 0) / 255,
  );
}

export function VoicePlayer({ attachment, own, error }: { attachment: AttachmentRef; own: boolean; error?: string }) {
  const client = useChatClient();
  const audio = useRef<HTMLAudioElement>(null);
  const [url, setUrl] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(error ?? null);
  const [playing, setPlaying] = useState(false);
  const [at, setAt] = useState(0);
  const [speed, setSpeed] = useState<(typeof SPEEDS)[number]>(1);
  const bars = useMemo(() => barsOf(attachment.waveform), [attachment.waveform]);
  const total = (attachment.durationMs ?? 0) / 1000;
  useEffect(() => () => (url ? URL.revokeObjectURL(url) : undefined), [url]);
  useEffect(() => {
    if (audio.current) audio.current.playbackRate = speed;
  }, [speed]);

  const toggle = async () => {
    const el = audio.current;
    if (!el || !client || !attachment.id) return;
    if (playing) {
      el.pause();
      return;
    }
    if (!url) {
      try {
        const blob = await client.files.open(attachment);
        // Gone, or opened by a click before this one: no URL to leak.
        if (!audio.current || audio.current.src) return;
        const opened = URL.createObjectURL(blob);
        el.src = opened;
        setUrl(opened);
      } catch (e) {
        setProblem(e instanceof Error ? e.message : 'Could not open the voice message.');
        return;
      }
    }
    el.playbackRate = speed;
    await el.play().catch(() => setProblem('This voice message cannot be played here.'));
  };

  const progress = total > 0 ? at / total : 0;
  const muted = own ? 'text-bubble-own-foreground/85' : 'text-muted-foreground';
  return (
    <div className="w-64 max-w-full space-y-1">
      <div className="flex items-center gap-2">
        <button
          type="button"
          onClick={() => void toggle()}
          aria-label={playing ? 'Pause voice message' : 'Play voice message'}
          className="flex size-10 shrink-0 cursor-pointer items-center justify-center rounded-full bg-primary text-primary-foreground focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
        >
          {playing ? <Pause className="size-5" aria-hidden /> : <Play className="size-5" aria-hidden />}
        </button>
        <div className="relative h-8 min-w-0 flex-1">
          <div aria-hidden className="flex h-full items-center gap-[2px]">
            {bars.map((h, i) => (
              <span
                // biome-ignore lint/suspicious/noArrayIndexKey: bars are positions
                key={i}
                className={cn(
                  'flex-1 rounded-full',
                  i / BARS < progress ? 'bg-primary' : own ? 'bg-black/25' : 'bg-muted-foreground/40',
                )}
                style={{ height: `${Math.max(12, h * 100)}%` }}
              />
            ))}
          </div>
          <input
            type="range"
            min={0}
            max={total || 1}
            step={0.1}
            value={at}
            aria-label="Position in the voice message"
            aria-valuetext={`${formatDuration(at * 1000)} of ${formatDuration(total * 1000)}`}
            disabled={!url}
            onChange={(e) => {
              const t = Number(e.target.value);
              if (audio.current) audio.current.currentTime = t;
              setAt(t);
            }}
            className="absolute inset-0 size-full cursor-pointer opacity-0 disabled:cursor-default"
          />
        </div>
        <button
          type="button"
          onClick={() => setSpeed((s) => SPEEDS[(SPEEDS.indexOf(s) + 1) % SPEEDS.length] ?? 1)}
          aria-label={`Playback speed ${speed}×`}
          className={cn(
            'w-10 shrink-0 cursor-pointer rounded-full py-1 text-xs font-semibold',
            own ? 'bg-black/10' : 'bg-muted',
          )}
        >
          {speed}×
        </button>
      </div>
      <p className={cn('pl-12 text-xs tabular-nums', muted)}>
        {problem ?? (playing || at > 0 ? formatDuration(at * 1000) : formatDuration(total * 1000))}
      </p>
      {/* biome-ignore lint/a11y/useMediaCaption: a voice message has no captions to give */}
      <audio
        ref={audio}
        preload="none"
        onPlay={() => setPlaying(true)}
        onPause={() => setPlaying(false)}
        onEnded={() => {
          setPlaying(false);
          setAt(0);
        }}
        onTimeUpdate={(e) => setAt(e.currentTarget.currentTime)}
      />
    </div>
  );
}
