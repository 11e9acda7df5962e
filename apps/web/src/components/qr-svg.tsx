/** A QR code of `text` as an SVG: dark on white in both themes (cameras read it either way). */
import { useMemo } from 'react';
import { encode } from 'uqr';

export function QrSvg({ text, label, testId }: { text: string; label: string; testId?: string }) {
  const qr = useMemo(() => encode(text, { ecc: 'M', border: 2 }), [text]);
  const n = qr.data.length;
  const path = useMemo(
    () =>
      qr.data
        .flatMap((row, y) => row.map((dark, x) => (dark ? `M${x} ${y}h1v1h-1z` : '')))
        .filter(Boolean)
        .join(''),
    [qr],
  );
  return (
    <svg
      role="img"
      aria-label={label}
      viewBox={`0 0 ${n} ${n}`}
      shapeRendering="crispEdges"
      className="mx-auto size-44 rounded-lg bg-white p-1"
      data-testid={testId}
    >
      <path d={path} fill="#000" />
    </svg>
  );
}
