/**
 * The one byte range of a `Range` header (RFC 9110 §14.1.2) over a blob of `size` bytes:
 * `bytes=a-b`, `bytes=a-` or `bytes=-n`. None (or several ranges, or another unit): the
 * whole blob. A range that starts past the end: unsatisfiable.
 */
export type ByteRange = { start: number; end: number; partial: boolean } | 'unsatisfiable';

export function byteRange(header: string | undefined, size: number): ByteRange {
  const whole = { start: 0, end: size - 1, partial: false };
  const m = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return whole;
  const [, from, to] = m as unknown as [string, string, string];
  if (from === '') {
    // The last n bytes.
    const n = Number(to);
    if (n === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1, partial: true };
  }
  const start = Number(from);
  if (start >= size) return 'unsatisfiable';
  const end = to === '' ? size - 1 : Math.min(Number(to), size - 1);
  if (end < start) return whole;
  return { start, end, partial: true };
}
