/**
 * zod compiles object schemas with `new Function` unless told not to, and probes
 * whether it may by calling `new Function('')` once. Under this app's CSP
 * (`script-src 'self'`, no 'unsafe-eval') the probe throws, which zod catches, but the
 * browser still reports a `securitypolicyviolation` for it on every page that parses
 * a schema. Turning the JIT off skips the probe (and parsing stays correct, only
 * interpreted).
 *
 * zod keeps its configuration on `globalThis.__zod_globalConfig` and adopts an object
 * already there when it loads. Setting it here, without importing zod, lets zod stay out
 * of the first screen's chunk (it loads with the screens that parse), while the setting
 * is still in place before any schema is built: main.tsx imports this module first.
 * zod-jitless.test.ts checks that zod picks it up. Only the web app sets it; the server
 * keeps the JIT.
 */
const scope = globalThis as { __zod_globalConfig?: Record<string, unknown> };
scope.__zod_globalConfig ??= {};
scope.__zod_globalConfig.jitless = true;

export {};
