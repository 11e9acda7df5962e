import { API, changeEmailSchema, changePasswordSchema, type Me, MSG, userResponseSchema } from '@app/protocol';
import { BadgeCheck, CircleAlert, LogOut } from 'lucide-react';
import { useState } from 'react';
import { passwordChange, reauth } from '@/client/keys/account-keys';
import { saveLocalKeys } from '@/client/keys/local-keys';
import { DeleteAccountDialog } from '@/components/delete-account-dialog';
import { FormSection } from '@/components/form-section';
import { PageShell } from '@/components/page-shell';
import { PasswordField } from '@/components/password-field';
import { RecoveryKeySection } from '@/components/recovery-key-section';
import { Button } from '@/components/ui/button';
import { FormField } from '@/components/ui/form-field';
import { notify, notifyError } from '@/components/ui/toaster';
import { useSession } from '@/hooks/use-session';
import { useSignOut } from '@/hooks/use-sign-out';
import { useSubmit } from '@/hooks/use-submit';
import { api } from '@/lib/api';
import { type FieldErrors, fieldErrors } from '@/lib/field-errors';
import { setUser } from '@/lib/session';

export default function AccountPage() {
  const { user } = useSession();
  const { signOut, busy: signingOut } = useSignOut();
  if (!user) return null; // RequireAuth renders this page for signed-in users only.

  return (
    <PageShell title="Account" back="/settings" className="grid content-start gap-6">
      <FormSection title="Email">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <span className="break-all font-medium">{user.email}</span>
          {user.emailVerified ? (
            <span className="inline-flex items-center gap-1 rounded-full bg-success/10 px-2.5 py-0.5 text-xs font-medium text-emerald-700 dark:text-emerald-300">
              <BadgeCheck className="size-3.5" aria-hidden />
              Verified
            </span>
          ) : (
            <span className="inline-flex items-center gap-1 rounded-full bg-warning px-2.5 py-0.5 text-xs font-medium text-warning-foreground">
              <CircleAlert className="size-3.5" aria-hidden />
              Not verified
            </span>
          )}
        </div>
      </FormSection>
      <ChangeEmailForm user={user} />
      <ChangePasswordForm user={user} />
      <RecoveryKeySection user={user} />
      <div className="grid gap-3 border-t border-border pt-6">
        <Button variant="outline" className="w-full" disabled={signingOut} onClick={signOut}>
          <LogOut aria-hidden />
          Logout
        </Button>
        <DeleteAccountDialog user={user} />
      </div>
    </PageShell>
  );
}

function ChangeEmailForm({ user }: { user: Me }) {
  const [newEmail, setNewEmail] = useState('');
  const [currentPassword, setCurrentPassword] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});

  const { busy, onSubmit } = useSubmit(async () => {
    if (!newEmail.trim() || !currentPassword) {
      notifyError('Error', MSG.fillAll);
      return;
    }
    const parsed = changeEmailSchema.safeParse({ newEmail, currentPassword });
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error.issues));
      notifyError('Failed to Update Email', parsed.error.issues[0]?.message);
      return;
    }
    setErrors({});
    try {
      // The server gets `auth`, never the password.
      const { auth } = await reauth(user, parsed.data.currentPassword);
      const res = await api(userResponseSchema, 'POST', API.changeEmail, { newEmail: parsed.data.newEmail, auth });
      notify('Email Updated', 'Please check your new email to verify');
      setUser(res.user);
      setNewEmail('');
      setCurrentPassword('');
    } catch (err) {
      notifyError('Failed to Update Email', err instanceof Error ? err.message : undefined);
    }
  });

  return (
    <FormSection title="Change Email">
      <form noValidate onSubmit={onSubmit} className="grid gap-4">
        <FormField
          id="account-new-email"
          label="New Email"
          type="email"
          autoComplete="email"
          autoCapitalize="none"
          spellCheck={false}
          placeholder="new@example.com"
          value={newEmail}
          error={errors.newEmail}
          onChange={(e) => {
            setNewEmail(e.target.value);
            setErrors({});
          }}
        />
        <PasswordField
          id="account-email-password"
          label="Current Password"
          autoComplete="current-password"
          value={currentPassword}
          error={errors.currentPassword}
          onChange={(e) => setCurrentPassword(e.target.value)}
        />
        <Button type="submit" className="w-full sm:w-auto sm:justify-self-start" disabled={busy}>
          {busy ? 'Updating...' : 'Update Email'}
        </Button>
      </form>
    </FormSection>
  );
}

function ChangePasswordForm({ user }: { user: Me }) {
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});

  const { busy, onSubmit } = useSubmit(async () => {
    if (!currentPassword || !newPassword) {
      notifyError('Error', MSG.fillAll);
      return;
    }
    const parsed = changePasswordSchema.safeParse({ currentPassword, newPassword });
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error.issues));
      notifyError('Failed to Update Password', parsed.error.issues[0]?.message);
      return;
    }
    setErrors({});
    try {
      // The same keys, re-sealed under the new password: the history stays readable.
      const change = await passwordChange(user, parsed.data.currentPassword, parsed.data.newPassword);
      const res = await api(userResponseSchema, 'POST', API.changePassword, change.body);
      await saveLocalKeys(user.id, change.contents, change.body.bundleVersion);
      notify('Password Updated');
      setUser(res.user);
      setCurrentPassword('');
      setNewPassword('');
    } catch (err) {
      notifyError('Failed to Update Password', err instanceof Error ? err.message : undefined);
    }
  });

  return (
    <FormSection
      title="Change Password"
      description="Your password protects your encryption keys. Changing it keeps them."
    >
      <form noValidate onSubmit={onSubmit} className="grid gap-4">
        <PasswordField
          id="account-current-password"
          label="Current Password"
          autoComplete="current-password"
          value={currentPassword}
          error={errors.currentPassword}
          onChange={(e) => setCurrentPassword(e.target.value)}
        />
        <PasswordField
          id="account-new-password"
          label="New Password"
          autoComplete="new-password"
          placeholder="At least 6 characters"
          value={newPassword}
          error={errors.newPassword}
          onChange={(e) => {
            setNewPassword(e.target.value);
            setErrors({});
          }}
        />
        <Button type="submit" className="w-full sm:w-auto sm:justify-self-start" disabled={busy}>
          {busy ? 'Updating...' : 'Update Password'}
        </Button>
      </form>
    </FormSection>
  );
}
