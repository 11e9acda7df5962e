/**
 * The exact messages of spec section 5's rules and of the account screens: plain strings,
 * in a module without zod, so a screen can show them without loading the schemas
 * (validation.ts uses them).
 */

export const MSG = {
  name: 'Name must be at least 2 characters',
  nameMax: 'Name must be at most 50 characters',
  phone: 'Invalid phone number',
  age: 'Age must be between 13 and 120',
  username: 'Username must be at least 3 characters',
  usernameMax: 'Username must be at most 20 characters',
  usernameChars: 'Username can only contain letters, numbers, and underscores',
  email: 'Invalid email address',
  password: 'Password must be at least 6 characters',
  passwordMax: 'Password must be at most 128 characters',
  fillAll: 'Please fill in all fields',
  agreement: 'Please agree to the terms and privacy policy',
  usernameTaken: 'This username is already in use',
  emailTaken: 'This email is already in use',
  invalidCredentials: 'Invalid credentials',
  signUpFailed: 'Please check your information and try again',
  deleteFailed: 'Please re-login and try again',
  wrongPassword: 'The current password is incorrect',
  sessionExpired: 'Your session has ended. Please sign in again.',
  tooManyAttempts: 'Too many attempts. Please wait a few minutes and try again.',
  invalidLink: 'This link is invalid or has expired',
} as const;
