import { ADMIN_MSG, helpLinkInputSchema } from '@app/protocol';
import { ExternalLink, Save } from 'lucide-react';
import { type FormEvent, useEffect, useState } from 'react';
import { FormSection } from '@/components/form-section';
import { Button } from '@/components/ui/button';
import { FormField } from '@/components/ui/form-field';
import { notify, notifyError } from '@/components/ui/toaster';
import { useHelpLink } from '@/hooks/use-public-settings';
import { saveHelpLink } from '@/lib/admin-api';
import { ApiError } from '@/lib/api';

const INPUT_ID = 'admin-help-link';

/** The Help row of every user's Settings opens this link (or says 'Coming Soon' without one). */
export function HelpLinkTab() {
  const current = useHelpLink();
  const [value, setValue] = useState('');
  const [touched, setTouched] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [saving, setSaving] = useState(false);

  // The saved link fills the field once loaded (unless the admin started typing).
  useEffect(() => {
    if (!touched && current !== undefined) setValue(current ?? '');
  }, [current, touched]);

  const onSubmit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (saving) return;
    const parsed = helpLinkInputSchema.safeParse({ helpLink: value });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      document.getElementById(INPUT_ID)?.focus();
      return;
    }
    setSaving(true);
    try {
      const r = await saveHelpLink(parsed.data.helpLink ?? '');
      setValue(r.helpLink ?? '');
      setTouched(false);
      notify(ADMIN_MSG.helpLinkUpdated);
    } catch (err) {
      if (err instanceof ApiError && err.issues[0]) setError(err.issues[0].message);
      notifyError('Update Failed', err instanceof Error ? err.message : undefined);
    } finally {
      setSaving(false);
    }
  };

  return (
    <FormSection
      title="Help Page"
      description="Users open this page from Help in their Settings. Leave it empty to show 'Coming Soon'."
    >
      <form noValidate onSubmit={onSubmit} className="grid gap-4" aria-label="Help page link">
        <FormField
          id={INPUT_ID}
          label="Help Page Link"
          type="url"
          inputMode="url"
          placeholder="https://help.example.com"
          value={value}
          error={error}
          hint="An http:// or https:// address"
          onChange={(e) => {
            setValue(e.target.value);
            setTouched(true);
            if (error) setError(undefined);
          }}
        />
        <div className="flex flex-wrap items-center gap-3">
          <Button type="submit" disabled={saving}>
            <Save aria-hidden />
            {saving ? 'Updating...' : 'Update Help Link'}
          </Button>
          {current ? (
            <a
              href={current}
              target="_blank"
              rel="noopener noreferrer"
              className="inline-flex min-w-0 items-center gap-1 text-sm text-primary underline-offset-4 hover:underline"
            >
              <ExternalLink className="size-4 shrink-0" aria-hidden />
              <span className="truncate">Open current link</span>
            </a>
          ) : current === null ? (
            <span className="text-sm text-muted-foreground">No link set: users see 'Coming Soon'.</span>
          ) : null}
        </div>
      </form>
    </FormSection>
  );
}
