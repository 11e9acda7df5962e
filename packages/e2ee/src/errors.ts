/**
 * What a reader of this package catches. Anything that fails to open (a flipped bit, a
 * ciphertext moved to another message, chat, sender or revision, a wrong key, a bad
 * signature, a malformed encoding) is an `E2EEAuthError`: callers show "This message
 * couldn't be verified" and never see bytes of a failed open.
 */
export class E2EEAuthError extends Error {
  override readonly name = 'E2EEAuthError';
  constructor(what: string, options?: { cause?: unknown }) {
    super(`${what} could not be verified`, options);
  }
}

/** Runs `open` and turns any failure of it into an `E2EEAuthError` about `what`. */
export async function authenticated<T>(what: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (cause) {
    if (cause instanceof E2EEAuthError) throw cause;
    throw new E2EEAuthError(what, { cause });
  }
}
