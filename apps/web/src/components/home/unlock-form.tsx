import { MSG } from '@app/protocol';
import { useState } from 'react';
import { PasswordField } from '@/components/password-field';
import { Button } from '@/components/ui/button';
import { DialogFooter } from '@/components/ui/dialog';
import { notify, notifyError } from '@/components/ui/toaster';
import { useChatClient } from '@/hooks/chat-hooks';
import { useSubmit } from '@/hooks/use-submit';

/** One password field of the form. */
export interface UnlockField {
  id: string;
  label: string;
  autoComplete: string;
}

/**
 * A form of password fields that unlocks keys (`unlock` gets the values in order); on
 * success every message is opened again and `done` runs.
 */
export function UnlockForm({
  fields,
  success = 'Messages Unlocked',
  action = 'Unlock',
  unlock,
  done,
}: {
  fields: UnlockField[];
  /** The toast's title once it worked. */
  success?: string;
  /** The submit button's label. */
  action?: string;
  unlock: (values: string[]) => Promise<void>;
  done: () => void;
}) {
  const client = useChatClient();
  const [values, setValues] = useState(() => fields.map(() => ''));
  const { busy, onSubmit } = useSubmit(async () => {
    if (values.some((v) => !v)) {
      notifyError('Error', MSG.fillAll);
      return;
    }
    try {
      await unlock(values);
      client?.crypto.reset();
      client?.reactions.reset();
      notify(success);
      done();
    } catch (e) {
      notifyError('Could Not Unlock', e instanceof Error ? e.message : undefined);
    }
  });
  return (
    <form noValidate onSubmit={onSubmit} className="grid gap-4">
      {fields.map((f, i) => (
        <PasswordField
          key={f.id}
          id={f.id}
          label={f.label}
          autoComplete={f.autoComplete}
          value={values[i] ?? ''}
          onChange={(e) => setValues((now) => now.map((v, j) => (j === i ? e.target.value : v)))}
        />
      ))}
      <DialogFooter>
        <Button type="submit" disabled={busy}>
          {busy ? `${action}...` : action}
        </Button>
      </DialogFooter>
    </form>
  );
}
