/**
 * Web Crypto's key type, named so the package type-checks both in the browser (DOM
 * typings) and in Node (whose typings declare `CryptoKey` as a value only).
 */
export type CryptoKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;
