/**
 * The one text policy of every string a client sends, applied by both ends through the
 * schemas built here:
 *
 * - Lengths are counted in UTF-16 code units: what `String.length` and an input's
 *   `maxlength` count, so an emoji usually counts 2. (zod's own `.max()` counts code
 *   points, so string lengths are never checked with it.) The limit therefore also bounds
 *   the bytes stored: at most 3 UTF-8 bytes a unit.
 * - U+0000 (NUL) and unpaired surrogates are refused in every field, before anything is
 *   stored: PostgreSQL cannot store NUL at all, and an unpaired surrogate has no UTF-8
 *   form (it would be stored as U+FFFD, not as what was acknowledged). Both engines
 *   therefore store exactly the same texts.
 */
import { z } from 'zod';

export const TEXT_MSG = {
  notStorable: 'Text contains characters that cannot be stored',
} as const;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether a string can be stored and read back unchanged on every engine. */
export function isStorableText(s: string): boolean {
  return !s.includes('\u0000') && !LONE_SURROGATE.test(s);
}

export interface TextRules {
  /** Message for a missing or non-string value. */
  required?: string;
  /** Trim surrounding white space first (the length is counted after trimming). */
  trim?: boolean;
  /** At least this many UTF-16 units, with its message. */
  min?: readonly [number, string];
  /** At most this many UTF-16 units, with its message. */
  max: readonly [number, string];
}

/** A string field under the text policy: storable, and within its limits in UTF-16 units. */
export function text(rules: TextRules) {
  const base = z.string(rules.required === undefined ? undefined : { error: rules.required });
  const s = rules.trim ? base.trim() : base;
  const min = rules.min;
  const [max, tooLong] = rules.max;
  return (
    s
      .refine((v) => min === undefined || v.length >= min[0], { error: min?.[1] ?? '', abort: true })
      .refine((v) => v.length <= max, { error: tooLong, abort: true })
      .refine(isStorableText, { error: TEXT_MSG.notStorable, abort: true })
      // The limits as the schema's JSON Schema shows them (the protocol-version test hashes it).
      .meta({ 'x-utf16MinLength': min?.[0] ?? 0, 'x-utf16MaxLength': max })
  );
}
