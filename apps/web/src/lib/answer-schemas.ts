/**
 * The schemas the first screen's modules (api.ts, session.ts) check answers with, loaded
 * with import() when an answer needs them, so that chunk carries no zod.
 */
export { apiErrorBodySchema, sessionResponseSchema } from '@app/protocol';
