import { isSafeHttpUrl, type Me, profilePicSchema, profileSchema } from '@app/protocol';
import { ExternalLink } from 'lucide-react';
import { type ChangeEvent, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { FormSection } from '@/components/form-section';
import { PageShell } from '@/components/page-shell';
import { Button } from '@/components/ui/button';
import { FormField } from '@/components/ui/form-field';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { notify, notifyError } from '@/components/ui/toaster';
import { UserAvatar } from '@/components/user-avatar';
import { useDebouncedValue } from '@/hooks/use-debounced-value';
import { useSession } from '@/hooks/use-session';
import { useSubmit } from '@/hooks/use-submit';
import { ApiError } from '@/lib/api';
import { type FieldErrors, fieldErrors } from '@/lib/field-errors';
import { publicSettings, saveProfile } from '@/lib/social-api';

const FIELDS = ['profilePic', 'name', 'phone', 'age'] as const;
type Field = (typeof FIELDS)[number];
type Values = Record<Field, string>;

/** The inputs' ids, so a failed save can focus the first field in error. */
const INPUT_ID: Record<Field, string> = {
  profilePic: 'profile-picture',
  name: 'profile-name',
  phone: 'profile-phone',
  age: 'profile-age',
};

/** A picture URL is previewed once typing pauses, so half-typed hosts are not fetched. */
const PREVIEW_DEBOUNCE_MS = 300;

function valuesOf(user: Me): Values {
  return { profilePic: user.profilePic ?? '', name: user.name, phone: user.phone, age: String(user.age) };
}

/** The image-upload site from the server's public settings; null while unknown or unusable. */
function useUploadUrl(): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    publicSettings().then(
      (s) => {
        if (live && isSafeHttpUrl(s.uploadUrl)) setUrl(s.uploadUrl);
      },
      () => {},
    );
    return () => {
      live = false;
    };
  }, []);
  return url;
}

export default function ProfilePage() {
  const { user } = useSession();
  if (!user) return null; // RequireAuth renders this page for signed-in users only.
  return (
    <PageShell title="Profile" back="/settings">
      <ProfileForm user={user} />
    </PageShell>
  );
}

function ProfileForm({ user }: { user: Me }) {
  const [values, setValues] = useState<Values>(() => valuesOf(user));
  const [errors, setErrors] = useState<FieldErrors>({});
  const uploadUrl = useUploadUrl();

  const picture = useDebouncedValue(values.profilePic.trim(), PREVIEW_DEBOUNCE_MS);
  const preview = picture && isSafeHttpUrl(picture) ? picture : null;

  const showErrors = (next: FieldErrors) => {
    setErrors(next);
    const first = FIELDS.find((f) => next[f]);
    if (first) document.getElementById(INPUT_ID[first])?.focus();
  };

  const bind = (field: Field) => ({
    id: INPUT_ID[field],
    value: values[field],
    error: errors[field],
    onChange: (e: ChangeEvent<HTMLInputElement>) => {
      const value = e.target.value;
      setValues((v) => ({ ...v, [field]: value }));
      if (errors[field]) setErrors((errs) => ({ ...errs, [field]: undefined }));
    },
  });

  /** A picture URL that is not http(s) is refused as soon as the field is left. */
  const checkPicture = () => {
    const r = profilePicSchema.safeParse(values.profilePic);
    setErrors((errs) => ({ ...errs, profilePic: r.success ? undefined : r.error.issues[0]?.message }));
  };

  const { busy, onSubmit } = useSubmit(async () => {
    const parsed = profileSchema.safeParse({
      name: values.name,
      phone: values.phone,
      age: values.age.trim() ? Number(values.age) : Number.NaN,
      profilePic: values.profilePic,
    });
    if (!parsed.success) {
      showErrors(fieldErrors(parsed.error.issues));
      notifyError('Update Failed', parsed.error.issues[0]?.message);
      return;
    }
    setErrors({});
    try {
      const res = await saveProfile(parsed.data);
      setValues(valuesOf(res.user));
      notify('Profile Updated');
    } catch (err) {
      if (err instanceof ApiError && err.issues.length > 0) showErrors(fieldErrors(err.issues));
      notifyError('Update Failed', err instanceof Error ? err.message : undefined);
    }
  });

  const pictureId = INPUT_ID.profilePic;
  const displayName = values.name.trim() || user.username;

  return (
    <form noValidate onSubmit={onSubmit} className="grid gap-6">
      <FormSection title="Profile Picture">
        <div className="flex items-center gap-4">
          <span role="img" aria-label={preview ? 'Profile picture preview' : 'No profile picture'}>
            <UserAvatar name={displayName} src={preview} size="xl" />
          </span>
          <div className="min-w-0">
            <p className="truncate text-lg font-semibold">{displayName}</p>
            <p className="truncate text-sm text-muted-foreground">@{user.username}</p>
          </div>
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor={pictureId}>Picture URL</Label>
          <div className="flex gap-2">
            <Input
              id={pictureId}
              type="url"
              inputMode="url"
              autoComplete="photo"
              autoCapitalize="none"
              spellCheck={false}
              placeholder="https://i.postimg.cc/…/photo.jpg"
              className="min-w-0 flex-1"
              value={values.profilePic}
              onChange={bind('profilePic').onChange}
              onBlur={checkPicture}
              aria-invalid={errors.profilePic ? true : undefined}
              aria-describedby={errors.profilePic ? `${pictureId}-error` : `${pictureId}-hint`}
            />
            {uploadUrl ? (
              <Button asChild variant="outline" className="shrink-0">
                <a href={uploadUrl} target="_blank" rel="noopener noreferrer">
                  <ExternalLink aria-hidden />
                  Upload
                  <span className="sr-only">(opens in a new tab)</span>
                </a>
              </Button>
            ) : (
              <Button variant="outline" className="shrink-0" disabled>
                <ExternalLink aria-hidden />
                Upload
              </Button>
            )}
          </div>
          {errors.profilePic ? (
            <p id={`${pictureId}-error`} className="text-xs text-destructive">
              {errors.profilePic}
            </p>
          ) : (
            <p id={`${pictureId}-hint`} className="text-xs text-muted-foreground">
              Upload a picture, then paste its direct link here. Leave empty for your initial.
            </p>
          )}
        </div>
      </FormSection>

      <FormSection title="Personal Details">
        <FormField label="Full Name" autoComplete="name" placeholder="Jane Doe" {...bind('name')} />
        <FormField
          label="Phone Number"
          type="tel"
          autoComplete="tel"
          inputMode="tel"
          placeholder="5551234567"
          {...bind('phone')}
        />
        <FormField
          label="Age"
          inputMode="numeric"
          pattern="[0-9]*"
          autoComplete="off"
          placeholder="18"
          maxLength={3}
          className="sm:max-w-32"
          {...bind('age')}
        />
      </FormSection>

      <FormSection title="Sign-in Details">
        <FormField
          id="profile-username"
          label="Username"
          value={`@${user.username}`}
          readOnly
          hint="Your username cannot be changed."
        />
        <FormField
          id="profile-email"
          label="Email"
          type="email"
          value={user.email}
          readOnly
          hint={
            <>
              Change it under{' '}
              <Link to="/account" className="font-medium text-primary underline-offset-4 hover:underline">
                Account
              </Link>
            </>
          }
        />
      </FormSection>

      <Button type="submit" size="lg" className="w-full" disabled={busy}>
        {busy ? 'Saving...' : 'Save Changes'}
      </Button>
    </form>
  );
}
