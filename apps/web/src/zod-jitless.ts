/**
 * zod compiles object schemas with `new Function` unless told not to, and probes
 * whether it may by calling `new Function('')` once. Under this app's CSP
 * (`script-src 'self'`, no 'unsafe-eval') the probe throws, which zod catches, but the
 * browser still reports a `securitypolicyviolation` for it on every page that parses
 * a schema. Turning the JIT off skips the probe (and parsing stays correct, only
 * interpreted).
 *
 * zod reads this setting when a schema is built, so this module is imported first
 * in main.tsx: ES modules evaluate in import order, so it runs before any module
 * (@app/protocol above all) builds a schema. Only the web app sets it; the server
 * keeps the JIT.
 */
import { config } from 'zod';

config({ jitless: true });
