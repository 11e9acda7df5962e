/**
 * "Scan code": the camera (the back one on a phone) in the dialog, read a few times a second
 * until it shows a QR code `onResult` takes (it answers whether it did). Loaded only when asked for (its own
 * chunk, with the decoder). The browser's own BarcodeDetector reads the frames where it
 * has one; elsewhere jsQR does. The camera stops when the scanner closes.
 */
import jsQR from 'jsqr';
import { useEffect, useRef, useState } from 'react';

/** How often a frame is read (ms). */
const EVERY_MS = 150;

interface Detector {
  detect(source: CanvasImageSource): Promise<{ rawValue: string }[]>;
}

/** The browser's QR detector, where it has one. */
async function nativeDetector(): Promise<Detector | null> {
  const Ctor = (globalThis as { BarcodeDetector?: new (o: { formats: string[] }) => Detector }).BarcodeDetector;
  if (!Ctor) return null;
  try {
    const formats = await (
      Ctor as unknown as { getSupportedFormats?: () => Promise<string[]> }
    ).getSupportedFormats?.();
    return formats?.includes('qr_code') ? new Ctor({ formats: ['qr_code'] }) : null;
  } catch {
    return null;
  }
}

function cameraProblem(e: unknown): string {
  const name = e instanceof DOMException ? e.name : '';
  if (name === 'NotAllowedError' || name === 'SecurityError')
    return 'Camera access was refused. Allow it in your browser’s settings for this site, or compare the numbers instead.';
  if (name === 'NotFoundError' || name === 'OverconstrainedError') return 'No camera was found on this device.';
  return 'The camera could not be started.';
}

export default function QrScanner({ onResult }: { onResult(text: string): boolean }) {
  const video = useRef<HTMLVideoElement>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const done = useRef(onResult);
  done.current = onResult;

  useEffect(() => {
    let stream: MediaStream | null = null;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let stopped = false;
    const canvas = document.createElement('canvas');
    const read = async (detector: Detector | null) => {
      const v = video.current;
      if (stopped || !v) return;
      if (v.readyState >= 2 && v.videoWidth > 0) {
        canvas.width = v.videoWidth;
        canvas.height = v.videoHeight;
        const ctx = canvas.getContext('2d', { willReadFrequently: true });
        ctx?.drawImage(v, 0, 0);
        let text: string | null = null;
        if (detector) text = (await detector.detect(canvas).catch(() => []))[0]?.rawValue ?? null;
        else if (ctx)
          text =
            jsQR(ctx.getImageData(0, 0, canvas.width, canvas.height).data, canvas.width, canvas.height)?.data ?? null;
        // Taken (the scanner's work is done), or not one it wants: read on.
        if (text && !stopped && done.current(text)) return;
      }
      timer = setTimeout(() => void read(detector), EVERY_MS);
    };
    (async () => {
      try {
        if (!navigator.mediaDevices?.getUserMedia) throw new DOMException('', 'NotFoundError');
        stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false });
        if (stopped) return;
        const v = video.current;
        if (!v) return;
        v.srcObject = stream;
        await v.play().catch(() => {});
        void read(await nativeDetector());
      } catch (e) {
        if (!stopped) setProblem(cameraProblem(e));
      }
    })();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      for (const t of stream?.getTracks() ?? []) t.stop();
    };
  }, []);

  if (problem !== null) {
    return (
      <p role="alert" className="rounded-xl bg-muted px-4 py-3 text-sm text-destructive">
        {problem}
      </p>
    );
  }
  return (
    <div className="relative overflow-hidden rounded-xl bg-black">
      <video ref={video} muted playsInline className="aspect-square w-full object-cover" aria-label="Camera" />
      <p className="absolute inset-x-0 bottom-0 bg-black/60 px-3 py-2 text-center text-sm text-white">
        Point the camera at the code on the other screen
      </p>
    </div>
  );
}
