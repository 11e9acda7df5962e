import { APP_NAME } from '@app/protocol';
import type { Mail } from './mailer.ts';

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function layout(title: string, paragraphs: string[], action?: { label: string; url: string }): string {
  const body = paragraphs.map((p) => `<p style="margin:0 0 16px">${escapeHtml(p)}</p>`).join('');
  const button = action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(action.url)}" style="background:#4f46e5;color:#fff;padding:12px 20px;border-radius:8px;text-decoration:none;font-weight:600">${escapeHtml(action.label)}</a></p><p style="margin:0 0 16px;color:#64748b;font-size:13px">Or paste this link into your browser: ${escapeHtml(action.url)}</p>`
    : '';
  return `<!doctype html><html><body style="font-family:system-ui,sans-serif;color:#0f172a;max-width:560px;margin:0 auto;padding:24px"><h1 style="font-size:20px">${escapeHtml(title)}</h1>${body}${button}<p style="color:#94a3b8;font-size:12px">${APP_NAME}</p></body></html>`;
}

export function verifyEmailMail(to: string, name: string, url: string): Mail {
  const text = `Hi ${name},\n\nPlease confirm that ${to} is your e-mail address for ${APP_NAME}:\n\n${url}\n\nThe link works once and expires in 24 hours. If you did not create an account, ignore this message.\n`;
  return {
    to,
    kind: 'verify',
    subject: `Verify your e-mail for ${APP_NAME}`,
    text,
    html: layout(
      'Verify your e-mail',
      [
        `Hi ${name},`,
        `Please confirm that ${to} is your e-mail address for ${APP_NAME}.`,
        'The link works once and expires in 24 hours. If you did not create an account, ignore this message.',
      ],
      { label: 'Verify e-mail', url },
    ),
  };
}

export function resetPasswordMail(to: string, name: string, url: string): Mail {
  const text = `Hi ${name},\n\nSomeone asked to reset the password of your ${APP_NAME} account. To choose a new password, open:\n\n${url}\n\nThe link works once and expires in 1 hour. If it was not you, ignore this message: your password stays as it is.\n`;
  return {
    to,
    kind: 'reset',
    subject: `Reset your ${APP_NAME} password`,
    text,
    html: layout(
      'Reset your password',
      [
        `Hi ${name},`,
        `Someone asked to reset the password of your ${APP_NAME} account.`,
        'The link works once and expires in 1 hour. If it was not you, ignore this message: your password stays as it is.',
      ],
      { label: 'Choose a new password', url },
    ),
  };
}

/** To an account imported from the original app (cli/import-rtdb.ts): its first password, through the reset page. */
export function setPasswordMail(to: string, name: string, username: string, url: string, days: number): Mail {
  const moved = `Your account @${username} has moved to ${APP_NAME}, with your chats and your contacts, but not your password.`;
  const expiry = `The link works once and expires in ${days} days. After that, use "Forgot password?" on the sign-in page with this address.`;
  const text = `Hi ${name},\n\n${moved} To sign in, choose a password:\n\n${url}\n\n${expiry}\n`;
  return {
    to,
    kind: 'set-password',
    subject: `Set your ${APP_NAME} password`,
    text,
    html: layout('Set your password', [`Hi ${name},`, moved, expiry], { label: 'Choose a password', url }),
  };
}

export function emailChangedMail(to: string, name: string, newEmail: string): Mail {
  const text = `Hi ${name},\n\nThe e-mail address of your ${APP_NAME} account was changed to ${newEmail}. If you did not do this, reset your password at once and contact the administrator.\n`;
  return {
    to,
    kind: 'email-changed',
    subject: `Your ${APP_NAME} e-mail address was changed`,
    text,
    html: layout('Your e-mail address was changed', [
      `Hi ${name},`,
      `The e-mail address of your ${APP_NAME} account was changed to ${newEmail}.`,
      'If you did not do this, reset your password at once and contact the administrator.',
    ]),
  };
}

export function passwordChangedMail(to: string, name: string): Mail {
  const text = `Hi ${name},\n\nThe password of your ${APP_NAME} account was changed, and your other sessions were signed out. If you did not do this, reset your password at once.\n`;
  return {
    to,
    kind: 'password-changed',
    subject: `Your ${APP_NAME} password was changed`,
    text,
    html: layout('Your password was changed', [
      `Hi ${name},`,
      `The password of your ${APP_NAME} account was changed, and your other sessions were signed out.`,
      'If you did not do this, reset your password at once.',
    ]),
  };
}
