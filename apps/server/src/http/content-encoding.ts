/**
 * HTTP content codings: which responses are worth compressing and which coding a request
 * accepts. Shared by the build (precompress.ts writes .br and .gz beside the web app's
 * files) and the server (response-compression.ts compresses API answers as they go).
 * The web app's files are picked by @fastify/static's preCompressed negotiation, which
 * follows the same rules (q-values, br before gzip on a tie, q=0 refuses) except that it
 * reads `*` as gzip.
 */

/** Codings the server sends, best first. */
export const CODINGS = ['br', 'gzip'] as const;
export type Coding = (typeof CODINGS)[number];

/** Below this a body goes as it is: the headers and the coding's framing eat the gain. */
export const MIN_COMPRESS_BYTES = 1024;

/** File extensions of the web app's text files, the only ones worth compressing. */
export const COMPRESSIBLE_EXTENSIONS = ['.js', '.mjs', '.css', '.html', '.svg', '.json', '.webmanifest', '.txt'];

/** Media types the server compresses as it answers (JSON from the API, HTML, text). */
export function isCompressibleType(contentType: string): boolean {
  const type = contentType.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return (
    type === 'application/json' ||
    type.endsWith('+json') ||
    type === 'application/javascript' ||
    type === 'image/svg+xml' ||
    type.startsWith('text/')
  );
}

/**
 * The coding to send for an Accept-Encoding header (RFC 9110 §12.5.3): the acceptable
 * coding with the highest q-value, br before gzip when they tie; `*` stands for any coding
 * the header does not name; q=0 refuses. null: send the identity (no header, nothing
 * acceptable, or a header that names no coding we have).
 */
export function negotiateEncoding(
  header: string | string[] | undefined,
  offered: readonly Coding[] = CODINGS,
): Coding | null {
  if (header === undefined) return null;
  const weights = new Map<string, number>();
  for (const part of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const [name = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (!name) continue;
    let q = 1;
    for (const param of params) {
      if (!/^q\s*=/.test(param)) continue; // an extension parameter: no bearing on the weight
      // qvalue = 0[.ddd] / 1[.000]; anything else is malformed and refuses the coding.
      const m = /^q\s*=\s*(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.exec(param);
      q = m ? Number(m[1]) : 0;
    }
    // x-gzip is gzip's old alias (RFC 9110 §8.4.1.3); a name given twice keeps its first weight.
    const coding = name === 'x-gzip' ? 'gzip' : name;
    if (!weights.has(coding)) weights.set(coding, q);
  }
  let best: Coding | null = null;
  let bestQ = 0;
  for (const coding of offered) {
    const q = weights.get(coding) ?? weights.get('*') ?? 0;
    if (q > bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  return best;
}

/** Adds Accept-Encoding to a Vary header value (kept as it is when already there or `*`). */
export function varyOnAcceptEncoding(current: unknown): string {
  const value = Array.isArray(current) ? current.join(', ') : current === undefined ? '' : String(current);
  const tokens = value.split(',').map((t) => t.trim().toLowerCase());
  if (tokens.includes('accept-encoding') || tokens.includes('*')) return value;
  return value ? `${value}, accept-encoding` : 'accept-encoding';
}
