/**
 * The chat info's "Media and files": the chat's photos as a grid (each opens the photo
 * viewer) and its files and voice messages as a list with Download, newest first, from the
 * messages this tab has loaded.
 */
import { Download, FileText, Mic } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs';
import { useChatClient } from '@/hooks/chat-hooks';
import { type ChatMedia, useChatMedia, useOpenPhoto } from '@/hooks/use-chat-media';
import { downloadOrTell, useOpenedAttachment } from '@/hooks/use-opened-attachment';
import { formatBytes, formatDuration, photoAlt } from '@/lib/attachment-label';
import { formatDayAndTime } from '@/lib/format-time';
import { PhotoImage } from './photo-image';

function PhotoTile({ item, peerHandle }: { item: ChatMedia; peerHandle: string }) {
  const openPhoto = useOpenPhoto();
  const { url } = useOpenedAttachment(item.ref);
  const alt = photoAlt(item.caption, item.fromMe ? 'you' : peerHandle);
  return (
    <li>
      <button
        type="button"
        aria-label={`Open photo: ${alt}`}
        onClick={() => openPhoto?.(item.msgId)}
        className="relative block aspect-square w-full cursor-pointer overflow-hidden rounded-lg bg-muted focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
      >
        <PhotoImage url={url} thumb={item.ref.thumb} alt="" />
      </button>
    </li>
  );
}

function FileRow({ item }: { item: ChatMedia }) {
  const client = useChatClient();
  const voice = item.ref.kind === 'voice';
  const name = voice ? `Voice message (${formatDuration(item.ref.durationMs ?? 0)})` : item.ref.name || 'File';
  const Icon = voice ? Mic : FileText;
  return (
    <li className="flex items-center gap-3 px-4 py-2.5">
      <span className="flex size-9 shrink-0 items-center justify-center rounded-lg bg-secondary text-primary">
        <Icon className="size-[18px]" aria-hidden />
      </span>
      <span className="min-w-0 flex-1">
        <span className="block truncate text-sm font-medium">{name}</span>
        <span className="text-xs text-muted-foreground">
          {formatBytes(item.ref.size)} · {formatDayAndTime(item.timestamp)}
        </span>
      </span>
      <Button
        variant="ghost"
        size="icon"
        aria-label={`Download ${name}`}
        onClick={() => void downloadOrTell(client, item.ref)}
      >
        <Download aria-hidden />
      </Button>
    </li>
  );
}

export function ChatMediaSection({ peerId, peerHandle }: { peerId: string; peerHandle: string }) {
  const media = useChatMedia(peerId);
  const photos = media.items.filter((m) => m.ref.kind === 'image').reverse();
  const files = media.items.filter((m) => m.ref.kind !== 'image').reverse();
  const none = (what: string) => (
    <p className="px-1 text-sm text-muted-foreground">{media.loading ? 'Loading…' : `No ${what} in this chat.`}</p>
  );
  const older =
    media.hasMore || media.failed ? (
      <>
        {media.failed ? (
          <p className="mt-2 px-1 text-sm text-muted-foreground" role="status">
            Couldn’t load this chat’s media.
          </p>
        ) : null}
        <Button variant="outline" size="sm" className="mt-2 w-full" disabled={media.loading} onClick={media.loadOlder}>
          {media.loading ? 'Loading…' : media.failed ? 'Try again' : 'Show older'}
        </Button>
      </>
    ) : null;
  return (
    <section
      aria-labelledby="chat-media-title"
      className="overflow-hidden rounded-2xl border border-border bg-background"
    >
      <h2 id="chat-media-title" className="px-4 pt-3 text-sm font-semibold">
        Media and files
      </h2>
      <Tabs defaultValue="photos" className="p-3">
        <TabsList>
          <TabsTrigger value="photos">Photos ({photos.length})</TabsTrigger>
          <TabsTrigger value="files">Files ({files.length})</TabsTrigger>
        </TabsList>
        <TabsContent value="photos" className="pt-3">
          {photos.length === 0 && !media.hasMore && !media.failed ? (
            none('photos')
          ) : (
            <ul className="grid grid-cols-3 gap-1.5">
              {photos.map((p) => (
                <PhotoTile key={p.msgId} item={p} peerHandle={peerHandle} />
              ))}
            </ul>
          )}
          {older}
        </TabsContent>
        <TabsContent value="files" className="pt-2">
          {files.length === 0 && !media.hasMore && !media.failed ? (
            none('files')
          ) : (
            <ul className="-mx-3 divide-y divide-border">
              {files.map((f) => (
                <FileRow key={f.msgId} item={f} />
              ))}
            </ul>
          )}
          {older}
        </TabsContent>
      </Tabs>
    </section>
  );
}
