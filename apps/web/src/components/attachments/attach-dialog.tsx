/**
 * The files about to be sent (picked with the clip button, pasted, or dropped on the
 * conversation), each with its preview, a caption and a remove button; Send sends each as
 * its own message, as WhatsApp does: photos prepared (lib/prepare-file.ts), or sent as
 * files in their original quality when the user ticks that, then sealed, uploaded and sent
 * by the outbox.
 */
import { FileText, X } from 'lucide-react';
import { useEffect, useId, useMemo, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Checkbox } from '@/components/ui/checkbox';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { notifyError } from '@/components/ui/toaster';
import { useChatClient } from '@/hooks/chat-hooks';
import { useAttachmentMaxBytes } from '@/hooks/use-public-settings';
import { formatBytes } from '@/lib/attachment-label';
import { isPhoto, prepareFile } from '@/lib/prepare-file';

interface Staged {
  key: string;
  file: File;
  caption: string;
}

/** One file to send: its preview (a photo's own pixels), name, size, caption and remove button. */
function StagedItem(props: { item: Staged; onCaption(caption: string): void; onRemove(): void }) {
  const { file, caption } = props.item;
  const captionId = useId();
  const photo = isPhoto(file);
  const url = useMemo(() => (photo ? URL.createObjectURL(file) : null), [file, photo]);
  useEffect(() => () => (url ? URL.revokeObjectURL(url) : undefined), [url]);
  return (
    <li className="flex items-start gap-3 rounded-xl border border-border p-2">
      {url ? (
        <img src={url} alt="" className="size-16 shrink-0 rounded-lg object-cover" />
      ) : (
        <span className="flex size-16 shrink-0 items-center justify-center rounded-lg bg-muted text-muted-foreground">
          <FileText className="size-7" aria-hidden />
        </span>
      )}
      <div className="min-w-0 flex-1 space-y-1.5">
        <p className="truncate text-sm font-medium" title={file.name}>
          {file.name || 'Pasted image'}
          <span className="ml-2 font-normal text-muted-foreground">{formatBytes(file.size)}</span>
        </p>
        <label htmlFor={captionId} className="sr-only">
          Caption for {file.name || 'the pasted image'}
        </label>
        <Input
          id={captionId}
          value={caption}
          placeholder="Add a caption..."
          maxLength={1000}
          onChange={(e) => props.onCaption(e.target.value)}
        />
      </div>
      <Button
        variant="ghost"
        size="icon"
        aria-label={`Remove ${file.name || 'the pasted image'}`}
        onClick={props.onRemove}
      >
        <X />
      </Button>
    </li>
  );
}

export function AttachDialog(props: { peerId: string; files: readonly File[]; onClose(): void; onSent(): void }) {
  const client = useChatClient();
  const [items, setItems] = useState<Staged[]>([]);
  const [busy, setBusy] = useState(false);
  const [asFiles, setAsFiles] = useState(false);
  const originalId = useId();
  // New files join those waiting (a second paste adds to the first).
  useEffect(() => {
    if (props.files.length === 0) return;
    setItems((now) => [...now, ...props.files.map((file) => ({ key: crypto.randomUUID(), file, caption: '' }))]);
  }, [props.files]);
  const close = () => {
    setItems([]);
    setAsFiles(false);
    props.onClose();
  };
  const photos = items.some((i) => isPhoto(i.file));
  const maxBytes = useAttachmentMaxBytes();
  const tooLarge = items.find((i) => i.file.size > maxBytes);

  const send = async () => {
    if (!client || busy || items.length === 0) return;
    setBusy(true);
    try {
      for (const item of items) {
        const queued = await client.sendFile(
          props.peerId,
          await prepareFile(item.file, asFiles),
          item.caption,
          maxBytes,
        );
        if ('problem' in queued) throw new Error(queued.problem);
        // Sent: not sent again if a later one fails and the user presses Send once more.
        setItems((now) => now.filter((i) => i.key !== item.key));
      }
      props.onSent();
    } catch (e) {
      notifyError('Not sent', e instanceof Error ? e.message : undefined);
    } finally {
      setBusy(false);
    }
  };

  const n = items.length;
  return (
    <Dialog open={n > 0} onOpenChange={(open) => (open ? undefined : close())}>
      <DialogContent className="max-h-[90dvh] overflow-y-auto sm:max-w-lg">
        <DialogHeader>
          <DialogTitle>{n === 1 ? 'Send 1 file' : `Send ${n} files`}</DialogTitle>
          <DialogDescription>
            {photos && !asFiles
              ? 'End-to-end encrypted. Photos are sent at up to 2,048 px, without their location or camera details.'
              : 'End-to-end encrypted.'}
          </DialogDescription>
        </DialogHeader>
        <ul className="space-y-2">
          {items.map((item) => (
            <StagedItem
              key={item.key}
              item={item}
              onCaption={(caption) => setItems((now) => now.map((i) => (i.key === item.key ? { ...i, caption } : i)))}
              onRemove={() => setItems((now) => now.filter((i) => i.key !== item.key))}
            />
          ))}
        </ul>
        {photos ? (
          <div className="flex items-start gap-2">
            <Checkbox
              id={originalId}
              checked={asFiles}
              onCheckedChange={(v) => setAsFiles(v === true)}
              className="mt-0.5"
            />
            <label htmlFor={originalId} className="text-sm">
              Send photos as files, in their original quality
              <span className="block text-muted-foreground">Files keep their camera details and location.</span>
            </label>
          </div>
        ) : null}
        {tooLarge ? (
          <p role="alert" className="text-sm text-destructive">
            {tooLarge.file.name} is larger than {formatBytes(maxBytes)}, the largest file you can send.
          </p>
        ) : null}
        <DialogFooter>
          <Button variant="outline" onClick={close}>
            Cancel
          </Button>
          <Button onClick={() => void send()} disabled={!client || busy || tooLarge !== undefined}>
            {busy ? 'Sending…' : 'Send'}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
