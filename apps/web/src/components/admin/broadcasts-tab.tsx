import {
  ADMIN_MSG,
  ADMIN_NOTIFICATIONS_SCROLL_PX,
  BROADCAST_MAX,
  type Broadcast,
  broadcastInputSchema,
} from '@app/protocol';
import { BellOff, Image as ImageIcon, Pencil, Send, Trash2, Video, X } from 'lucide-react';
import { type ChangeEvent, type FormEvent, useCallback, useEffect, useId, useState } from 'react';
import { EmptyState } from '@/components/empty-state';
import { FormSection } from '@/components/form-section';
import { Spinner } from '@/components/spinner';
import { Button } from '@/components/ui/button';
import { FormField } from '@/components/ui/form-field';
import { Label } from '@/components/ui/label';
import { notify, notifyError } from '@/components/ui/toaster';
import { deleteBroadcast, editBroadcast, listBroadcasts, sendBroadcast } from '@/lib/admin-api';
import { ApiError } from '@/lib/api';
import { type FieldErrors, fieldErrors } from '@/lib/field-errors';
import { formatDateTime } from '@/lib/format-time';
import { cn } from '@/lib/utils';

type Values = { message: string; videoUrl: string; imageUrl: string };
const EMPTY: Values = { message: '', videoUrl: '', imageUrl: '' };
const INPUT_ID: Record<keyof Values, string> = {
  message: 'broadcast-message',
  videoUrl: 'broadcast-video',
  imageUrl: 'broadcast-image',
};

function byNewest(a: Broadcast, b: Broadcast): number {
  return b.timestamp - a.timestamp || (a.id < b.id ? 1 : -1);
}

/** Send, edit and delete broadcasts; every user's /notifications gets them live. */
export function BroadcastsTab() {
  const [values, setValues] = useState<Values>(EMPTY);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [editing, setEditing] = useState<Broadcast | null>(null);
  const [saving, setSaving] = useState(false);
  const [sent, setSent] = useState<Broadcast[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  const counterId = useId();

  const load = useCallback(() => {
    setLoadError(null);
    listBroadcasts().then(
      (list) => setSent(list.slice().sort(byNewest)),
      (e: unknown) => setLoadError(e instanceof Error ? e.message : 'Could not load notifications'),
    );
  }, []);
  useEffect(load, [load]);

  const reset = () => {
    setEditing(null);
    setValues(EMPTY);
    setErrors({});
  };

  const bind = (field: keyof Values) => ({
    id: INPUT_ID[field],
    value: values[field],
    error: errors[field],
    onChange: (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
      const value = e.target.value;
      setValues((v) => ({ ...v, [field]: value }));
      if (errors[field]) setErrors((errs) => ({ ...errs, [field]: undefined }));
    },
  });

  const showErrors = (next: FieldErrors) => {
    setErrors(next);
    const first = (Object.keys(INPUT_ID) as (keyof Values)[]).find((f) => next[f]);
    if (first) document.getElementById(INPUT_ID[first])?.focus();
  };

  const onSubmit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (saving) return;
    const parsed = broadcastInputSchema.safeParse(values);
    if (!parsed.success) {
      showErrors(fieldErrors(parsed.error.issues));
      return;
    }
    setSaving(true);
    try {
      const b = editing ? await editBroadcast(editing.id, parsed.data) : await sendBroadcast(parsed.data);
      setSent((list) => [b, ...(list ?? []).filter((x) => x.id !== b.id)].sort(byNewest));
      notify(editing ? ADMIN_MSG.notificationUpdated : ADMIN_MSG.notificationSent);
      reset();
    } catch (err) {
      if (err instanceof ApiError && err.issues.length > 0) showErrors(fieldErrors(err.issues));
      if (err instanceof ApiError && err.code === 'not_found' && editing) {
        // Deleted meanwhile (another tab): back to create mode with the text kept.
        setSent((list) => (list ?? []).filter((x) => x.id !== editing.id));
        setEditing(null);
      }
      notifyError(editing ? 'Update Failed' : 'Send Failed', err instanceof Error ? err.message : undefined);
    } finally {
      setSaving(false);
    }
  };

  const startEdit = (b: Broadcast) => {
    setEditing(b);
    setValues({ message: b.message, videoUrl: b.videoUrl ?? '', imageUrl: b.imageUrl ?? '' });
    setErrors({});
    document.getElementById(INPUT_ID.message)?.focus();
  };

  const remove = async (b: Broadcast) => {
    if (deleting) return;
    setDeleting(b.id);
    try {
      await deleteBroadcast(b.id);
      setSent((list) => (list ?? []).filter((x) => x.id !== b.id));
      if (editing?.id === b.id) reset();
      notify(ADMIN_MSG.notificationDeleted);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'not_found') {
        setSent((list) => (list ?? []).filter((x) => x.id !== b.id));
      }
      notifyError('Delete Failed', err instanceof Error ? err.message : undefined);
    } finally {
      setDeleting(null);
    }
  };

  const messageError = errors.message;
  return (
    <div className="grid gap-6">
      <FormSection
        title={editing ? 'Edit Notification' : 'Send Notification'}
        description={
          editing
            ? 'Saving replaces the notification and sends it again with a new time.'
            : 'Every user sees it on their Notifications screen at once.'
        }
      >
        <form noValidate onSubmit={onSubmit} className="grid gap-4" aria-label="Notification">
          <div className="grid gap-1.5">
            <Label htmlFor={INPUT_ID.message}>Message</Label>
            <textarea
              {...bind('message')}
              rows={4}
              maxLength={BROADCAST_MAX}
              placeholder="Write the announcement..."
              aria-invalid={messageError ? true : undefined}
              aria-describedby={messageError ? `${INPUT_ID.message}-error` : counterId}
              className="min-h-24 w-full resize-y rounded-lg border border-input bg-background px-3 py-2 text-base shadow-sm placeholder:text-slate-400 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring aria-invalid:border-destructive md:text-sm"
            />
            {messageError ? (
              <p id={`${INPUT_ID.message}-error`} className="text-xs text-destructive">
                {messageError}
              </p>
            ) : (
              <p id={counterId} className="text-right text-xs text-muted-foreground tabular-nums">
                {values.message.length} / {BROADCAST_MAX}
              </p>
            )}
          </div>
          <FormField
            label="Video URL (optional)"
            type="url"
            inputMode="url"
            placeholder="https://www.youtube.com/watch?v=..."
            hint="A YouTube or Vimeo link"
            {...bind('videoUrl')}
          />
          <FormField
            label="Image URL (optional)"
            type="url"
            inputMode="url"
            placeholder="https://..."
            {...bind('imageUrl')}
          />
          <div className="flex flex-wrap gap-2">
            <Button type="submit" disabled={saving} className="flex-1">
              <Send aria-hidden />
              {saving
                ? editing
                  ? 'Updating...'
                  : 'Sending...'
                : editing
                  ? 'Update Notification'
                  : 'Send Notification'}
            </Button>
            {editing ? (
              <Button type="button" variant="outline" onClick={reset} disabled={saving}>
                <X aria-hidden />
                Cancel
              </Button>
            ) : null}
          </div>
        </form>
      </FormSection>

      <section aria-labelledby="sent-heading" className="grid gap-3">
        <h2 id="sent-heading" className="text-base font-semibold">
          Sent Notifications
        </h2>
        <div
          className="overflow-y-auto overscroll-contain rounded-xl border border-border"
          style={{ height: ADMIN_NOTIFICATIONS_SCROLL_PX }}
          data-testid="admin-sent-scroll"
        >
          {sent === null ? (
            loadError ? (
              <div className="flex h-full flex-col items-center justify-center gap-3 p-6 text-center">
                <p role="alert" className="text-sm text-destructive">
                  {loadError}
                </p>
                <Button variant="outline" size="sm" onClick={load}>
                  Retry
                </Button>
              </div>
            ) : (
              <div className="flex h-full items-center justify-center">
                <Spinner />
              </div>
            )
          ) : sent.length === 0 ? (
            <EmptyState icon={BellOff} title={ADMIN_MSG.noNotifications} />
          ) : (
            <ul aria-label="Sent notifications" className="divide-y divide-border">
              {sent.map((b) => (
                <li
                  key={b.id}
                  className={cn('flex gap-3 p-3', editing?.id === b.id && 'bg-secondary/50')}
                  data-testid="sent-notification"
                >
                  <div className="min-w-0 flex-1 space-y-1">
                    <p className="line-clamp-3 text-sm whitespace-pre-wrap [overflow-wrap:anywhere]">{b.message}</p>
                    <p className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-muted-foreground">
                      <time dateTime={new Date(b.timestamp).toISOString()}>{formatDateTime(b.timestamp)}</time>
                      {b.videoUrl ? (
                        <span className="inline-flex items-center gap-1">
                          <Video className="size-3.5" aria-hidden />
                          Video
                        </span>
                      ) : null}
                      {b.imageUrl ? (
                        <span className="inline-flex items-center gap-1">
                          <ImageIcon className="size-3.5" aria-hidden />
                          Image
                        </span>
                      ) : null}
                      {editing?.id === b.id ? <span className="font-medium text-primary">Editing</span> : null}
                    </p>
                  </div>
                  <div className="flex shrink-0 items-start gap-1">
                    <Button
                      variant="ghost"
                      size="icon"
                      aria-label="Edit notification"
                      disabled={saving}
                      onClick={() => startEdit(b)}
                    >
                      <Pencil aria-hidden />
                    </Button>
                    <Button
                      variant="ghost"
                      size="icon"
                      aria-label="Delete notification"
                      className="text-destructive hover:text-destructive"
                      disabled={deleting === b.id}
                      onClick={() => void remove(b)}
                    >
                      <Trash2 aria-hidden />
                    </Button>
                  </div>
                </li>
              ))}
            </ul>
          )}
        </div>
      </section>
    </div>
  );
}
