/** The chat's security code as a QR code, for the other person's camera ("Scan code" on their screen). */

import { useMemo } from 'react';
import { encode } from 'uqr';
import { securityQrText } from '@/lib/security-qr';

export function SecurityQrCode({ groups }: { groups: readonly string[] }) {
  const qr = useMemo(() => encode(securityQrText(groups), { ecc: 'M', border: 2 }), [groups]);
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
    // Dark on white in both themes: cameras read it either way, and a white quiet zone helps them.
    <svg
      role="img"
      aria-label="Security code as a QR code"
      viewBox={`0 0 ${n} ${n}`}
      shapeRendering="crispEdges"
      className="mx-auto size-44 rounded-lg bg-white p-1"
      data-testid="security-qr"
    >
      <path d={path} fill="#000" />
    </svg>
  );
}
