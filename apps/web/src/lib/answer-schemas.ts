/**
 * The schemas the first screens check input and answers with, loaded with import() when
 * they are needed (an error answer, a signed-in session, a submitted sign-in or sign-up
 * form), so that the first screens' chunks carry no zod.
 */
import { secondFactorDueSchema, signedInResponseSchema } from '@app/protocol';
import { z } from 'zod';

export { apiErrorBodySchema, sessionResponseSchema, signedInResponseSchema, signUpSchema } from '@app/protocol';

/** POST /api/auth/signin: signed in, or a second step due (protocol two-factor.ts). */
export const signInAnswerSchema = z.union([secondFactorDueSchema, signedInResponseSchema]);
