/**
 * An attachment in its bubble:
 * - a photo at its own shape, blurred thumbnail first, then the photo once downloaded,
 *   opened and checked (client/attachments/attachment-files.ts); a click opens the chat's
 *   photo viewer at it (photo-viewer.tsx);
 * - a voice message as its player (voice-player.tsx);
 * - any other file as its name and size with a download button;
 * - while one's own is uploading, how far it got.
 * One that fails its check says "This file couldn't be verified", and never shows a byte.
 */
import type { AttachmentRef } from '@app/e2ee';
import { Download, FileText, TriangleAlert, X } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { useChatClient } from '@/hooks/chat-hooks';
import { useOpenPhoto } from '@/hooks/use-chat-media';
import { downloadAttachment, useOpenedAttachment } from '@/hooks/use-opened-attachment';
import { formatBytes } from '@/lib/attachment-label';
import { cn } from '@/lib/utils';
import { PhotoImage } from './photo-image';
import { VoicePlayer } from './voice-player';

/** The largest a photo is drawn in its bubble (px). */
const PHOTO_MAX_W = 280;
const PHOTO_MAX_H = 320;

function Failed({ text }: { text: string }) {
  return (
    <p className="flex items-center gap-2 px-1 py-2 text-sm italic">
      <TriangleAlert className="size-4 shrink-0" aria-hidden />
      {text}
    </p>
  );
}

/** How far one's own upload got, with the button that cancels it (the message goes with it). */
function Progress({ value, msgId }: { value: number; msgId: string }) {
  const client = useChatClient();
  const pct = Math.round(value * 100);
  return (
    <span className="flex items-center gap-2">
      <span
        role="progressbar"
        aria-label="Uploading"
        aria-valuenow={pct}
        aria-valuemin={0}
        aria-valuemax={100}
        className="h-1 min-w-0 flex-1 overflow-hidden rounded-full bg-black/15"
      >
        <span className="block h-full bg-primary transition-[width]" style={{ width: `${pct}%` }} />
      </span>
      <button
        type="button"
        aria-label="Cancel upload"
        onClick={(e) => {
          e.stopPropagation();
          client?.cancelUpload(msgId);
        }}
        className="flex size-6 shrink-0 cursor-pointer items-center justify-center rounded-full bg-black/40 text-white focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
      >
        <X className="size-3.5" aria-hidden />
      </button>
    </span>
  );
}

function Photo(props: { attachment: AttachmentRef; msgId: string; alt: string; uploading?: number }) {
  const { attachment, uploading } = props;
  const openPhoto = useOpenPhoto();
  const { url, error } = useOpenedAttachment(attachment);
  const w = attachment.width ?? PHOTO_MAX_W;
  const h = attachment.height ?? PHOTO_MAX_W;
  const scale = Math.min(1, PHOTO_MAX_W / w, PHOTO_MAX_H / h);
  const box = { width: Math.max(120, Math.round(w * scale)), aspectRatio: `${w} / ${h}` };
  if (error) return <Failed text={error} />;
  return (
    <div className="relative max-w-full overflow-hidden rounded-xl bg-muted" style={box}>
      <button
        type="button"
        className="absolute inset-0 block cursor-pointer disabled:cursor-default"
        disabled={!url || !openPhoto}
        aria-label={`Open photo: ${props.alt}`}
        onClick={() => openPhoto?.(props.msgId)}
      >
        <PhotoImage url={url} thumb={attachment.thumb} alt={props.alt} />
      </button>
      {uploading !== undefined ? (
        <span className="absolute inset-x-2 bottom-2">
          <Progress value={uploading} msgId={props.msgId} />
        </span>
      ) : null}
    </div>
  );
}

function FileLine({
  attachment,
  msgId,
  own,
  uploading,
}: {
  attachment: AttachmentRef;
  msgId: string;
  own: boolean;
  uploading?: number;
}) {
  const client = useChatClient();
  const [problem, setProblem] = useState<string | null>(null);
  const name = attachment.name || 'File';
  return (
    <div className="w-64 max-w-full space-y-1.5">
      <div className="flex items-center gap-3">
        <span
          className={cn(
            'flex size-10 shrink-0 items-center justify-center rounded-lg',
            own ? 'bg-black/10' : 'bg-muted',
          )}
        >
          <FileText className="size-5" aria-hidden />
        </span>
        <span className="min-w-0 flex-1">
          <span className="block truncate font-medium" title={name}>
            {name}
          </span>
          <span className={cn('text-xs', own ? 'text-bubble-own-foreground/85' : 'text-muted-foreground')}>
            {formatBytes(attachment.size)}
          </span>
        </span>
        {attachment.id && uploading === undefined ? (
          <Button
            variant="ghost"
            size="icon"
            aria-label={`Download ${name}`}
            onClick={() => void downloadAttachment(client, attachment).then(setProblem)}
          >
            <Download aria-hidden />
          </Button>
        ) : null}
      </div>
      {uploading !== undefined ? <Progress value={uploading} msgId={msgId} /> : null}
      {problem ? <Failed text={problem} /> : null}
    </div>
  );
}

export function AttachmentView(props: {
  attachment: AttachmentRef;
  /** The message it is in (the photo viewer opens at it). */
  msgId: string;
  own: boolean;
  /** Said of a photo to screen readers: its caption, or "Photo from @bob". */
  alt: string;
  /** One's own, still uploading: how far (0 to 1). */
  uploading?: number;
}) {
  const { attachment, own, uploading } = props;
  return (
    <div className="w-full pt-0.5 pb-1">
      {attachment.kind === 'image' ? (
        <Photo
          attachment={attachment}
          msgId={props.msgId}
          alt={props.alt}
          {...(uploading !== undefined ? { uploading } : {})}
        />
      ) : attachment.kind === 'voice' && uploading === undefined ? (
        <VoicePlayer attachment={attachment} own={own} />
      ) : (
        <FileLine
          attachment={attachment}
          msgId={props.msgId}
          own={own}
          {...(uploading !== undefined ? { uploading } : {})}
        />
      )}
    </div>
  );
}
