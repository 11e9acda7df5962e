/**
 * A voice message being recorded: the microphone through MediaRecorder (Opus, in WebM or
 * Ogg, whichever the browser writes), its loudness sampled ten times a second for the live
 * bars and the waveform sealed with the message (at most WAVEFORM_MAX bars, one byte each).
 */
import { WAVEFORM_MAX } from '@app/e2ee/attachment-ref';
import { toBase64Url } from '@app/e2ee/bytes';
import type { PreparedFile } from '@/client/attachments/prepared-file';

const TYPES = ['audio/webm;codecs=opus', 'audio/ogg;codecs=opus', 'audio/webm', 'audio/mp4'];
const SAMPLE_MS = 100;

/** `levels` (0 to 1) averaged into at most `bars` bytes, the loudest 255, base64url. */
export function waveformOf(levels: readonly number[], bars = WAVEFORM_MAX): string {
  const n = Math.min(bars, levels.length);
  const out = new Uint8Array(n);
  const loudest = Math.max(1e-6, ...levels);
  for (let i = 0; i < n; i++) {
    const from = Math.floor((i * levels.length) / n);
    const to = Math.max(from + 1, Math.floor(((i + 1) * levels.length) / n));
    let sum = 0;
    for (let j = from; j < to; j++) sum += levels[j] ?? 0;
    out[i] = Math.min(255, Math.round((sum / (to - from) / loudest) * 255));
  }
  return toBase64Url(out);
}

export class VoiceRecording {
  /** Loudness so far, one sample every 100 ms (0 to 1). */
  readonly levels: number[] = [];
  private readonly startedAt = performance.now();
  private readonly chunks: Blob[] = [];
  private readonly recorder: MediaRecorder;
  private readonly stream: MediaStream;
  private readonly audio: AudioContext;
  private readonly timer: ReturnType<typeof setInterval>;

  private constructor(stream: MediaStream) {
    this.stream = stream;
    const mimeType = TYPES.find((t) => MediaRecorder.isTypeSupported(t));
    this.recorder = new MediaRecorder(stream, mimeType ? { mimeType } : {});
    this.recorder.ondataavailable = (e) => {
      if (e.data.size > 0) this.chunks.push(e.data);
    };
    this.recorder.start(1000);
    this.audio = new AudioContext();
    // Made after the permission prompt, it may start suspended: the levels would all be 0.
    void this.audio.resume();
    const analyser = this.audio.createAnalyser();
    analyser.fftSize = 512;
    this.audio.createMediaStreamSource(stream).connect(analyser);
    const samples = new Float32Array(analyser.fftSize);
    this.timer = setInterval(() => {
      analyser.getFloatTimeDomainData(samples);
      let sum = 0;
      for (const s of samples) sum += s * s;
      // Loudness in decibels, -60 dB (a quiet room) to 0: speech fills the bars.
      const db = 20 * Math.log10(Math.sqrt(sum / samples.length) || 1e-6);
      this.levels.push(Math.min(1, Math.max(0, (db + 60) / 60)));
    }, SAMPLE_MS);
  }

  /** Asks for the microphone and starts; rejects when the user or the browser refuses it. */
  static async start(): Promise<VoiceRecording> {
    const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    return new VoiceRecording(stream);
  }

  elapsedMs(): number {
    return performance.now() - this.startedAt;
  }

  private release(): void {
    clearInterval(this.timer);
    for (const track of this.stream.getTracks()) track.stop();
    void this.audio.close();
  }

  /** Stops, and gives the recording as a file ready to send. */
  async stop(): Promise<PreparedFile> {
    const durationMs = Math.round(this.elapsedMs());
    const stopped = new Promise<void>((resolve) => {
      this.recorder.onstop = () => resolve();
    });
    this.recorder.stop();
    await stopped;
    this.release();
    const type = this.recorder.mimeType || 'audio/webm';
    const ext = type.includes('ogg') ? 'ogg' : type.includes('mp4') ? 'm4a' : 'webm';
    return {
      file: new Blob(this.chunks, { type }),
      name: `voice-message.${ext}`,
      type,
      kind: 'voice',
      durationMs,
      waveform: waveformOf(this.levels),
    };
  }

  /** Stops and throws the recording away. */
  cancel(): void {
    if (this.recorder.state !== 'inactive') this.recorder.stop();
    this.release();
  }
}
