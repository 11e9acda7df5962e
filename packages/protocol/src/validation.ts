/**
 * The validation rules of spec section 5 with their exact messages. The browser
 * and the server both parse with these schemas, so the rules exist once.
 */
import { z } from 'zod';
import {
  AGE_MAX,
  AGE_MIN,
  EMAIL_MAX,
  NAME_MAX,
  NAME_MIN,
  PASSWORD_MAX,
  PASSWORD_MIN,
  PHONE_MAX,
  PHONE_MIN,
  USERNAME_MAX,
  USERNAME_MIN,
} from './constants.ts';
import { MSG } from './messages.ts';
import { text } from './text.ts';

/** Control characters (C0, DEL, C1) are refused in every text field. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: that is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export const nameSchema = text({
  required: MSG.name,
  trim: true,
  min: [NAME_MIN, MSG.name],
  max: [NAME_MAX, MSG.nameMax],
}).refine((v) => !CONTROL.test(v), { error: 'Name contains characters that are not allowed' });

export const phoneSchema = text({
  required: MSG.phone,
  trim: true,
  min: [PHONE_MIN, MSG.phone],
  max: [PHONE_MAX, MSG.phone],
}).regex(/^\+?[0-9][0-9 ()-]*$/, { error: MSG.phone });

export const ageSchema = z
  .number({ error: MSG.age })
  .int({ error: MSG.age })
  .min(AGE_MIN, { error: MSG.age })
  .max(AGE_MAX, { error: MSG.age });

/** ASCII only (the pattern), so zod's code-point lengths are UTF-16 lengths here. */
export const usernameSchema = z
  .string({ error: MSG.username })
  .trim()
  .min(USERNAME_MIN, { error: MSG.username })
  .max(USERNAME_MAX, { error: MSG.usernameMax })
  .regex(/^[A-Za-z0-9_]+$/, { error: MSG.usernameChars });

/**
 * A handle as people type it to find someone or sign in: trimmed, lower case, without a
 * leading '@'. Both ends match and key searches by it.
 */
export function handleKey(typed: string): string {
  return typed.trim().toLowerCase().replace(/^@/, '');
}

export const emailSchema = text({ required: MSG.email, trim: true, max: [EMAIL_MAX, MSG.email] }).pipe(
  z.email({ error: MSG.email }),
);

export const passwordSchema = text({
  required: MSG.password,
  min: [PASSWORD_MIN, MSG.password],
  max: [PASSWORD_MAX, MSG.passwordMax],
});

/** Password as typed at sign-in or re-authentication: only bounded, never judged. */
const anyPassword = text({ required: MSG.fillAll, min: [1, MSG.fillAll], max: [PASSWORD_MAX * 4, MSG.passwordMax] });

export const signUpSchema = z.strictObject({
  name: nameSchema,
  phone: phoneSchema,
  age: ageSchema,
  username: usernameSchema,
  email: emailSchema,
  password: passwordSchema,
  agree: z.literal(true, { error: MSG.agreement }),
});
export type SignUpInput = z.infer<typeof signUpSchema>;

export const signInSchema = z.strictObject({
  /** An e-mail when it contains '@', otherwise a username. */
  login: text({ required: MSG.fillAll, trim: true, min: [1, MSG.fillAll], max: [EMAIL_MAX, MSG.invalidCredentials] }),
  password: anyPassword,
  remember: z.boolean().default(true),
});
export type SignInInput = z.input<typeof signInSchema>;

export const changeEmailSchema = z.strictObject({
  newEmail: z.string({ error: MSG.fillAll }).trim().min(1, { error: MSG.fillAll }).pipe(emailSchema),
  currentPassword: anyPassword,
});
export type ChangeEmailInput = z.infer<typeof changeEmailSchema>;

export const changePasswordSchema = z.strictObject({
  currentPassword: anyPassword,
  newPassword: z.string({ error: MSG.fillAll }).min(1, { error: MSG.fillAll }).pipe(passwordSchema),
});
export type ChangePasswordInput = z.infer<typeof changePasswordSchema>;

export const tokenSchema = z
  .string({ error: MSG.invalidLink })
  .regex(/^[A-Za-z0-9_-]{20,100}$/, { error: MSG.invalidLink });

export const verifyEmailSchema = z.strictObject({ token: tokenSchema });
export const forgotPasswordSchema = z.strictObject({ email: emailSchema });
export const resetPasswordSchema = z.strictObject({ token: tokenSchema, password: passwordSchema });

/** URLs a user may put in front of other people: http and https only. */
export function isSafeHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** The first message of a failed parse, for a toast. */
export function firstIssue(error: z.ZodError): string {
  return error.issues[0]?.message ?? MSG.signUpFailed;
}
