/**
 * A chat's photos, large: the one chosen, with its caption and "2 of 5", the arrows (and ←
 * and →) to the one before and after in the chat (older ones are fetched on reaching the
 * first loaded), Download, and Escape or Close to go back.
 */
import { ChevronLeft, ChevronRight, Download } from 'lucide-react';
import { useEffect, useRef } from 'react';
import { Button } from '@/components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogTitle } from '@/components/ui/dialog';
import { useChatClient } from '@/hooks/chat-hooks';
import { useChatMedia } from '@/hooks/use-chat-media';
import { downloadOrTell, useOpenedAttachment } from '@/hooks/use-opened-attachment';
import { photoAlt } from '@/lib/attachment-label';

export function PhotoViewer(props: {
  peerId: string;
  peerHandle: string;
  msgId: string | null;
  onMove(msgId: string): void;
  onClose(): void;
}) {
  const client = useChatClient();
  const media = useChatMedia(props.peerId);
  const photos = media.items.filter((m) => m.ref.kind === 'image');
  const at = photos.findIndex((p) => p.msgId === props.msgId);
  // At the first photo loaded: the ones before it, from the server.
  const { hasMore, loading, failed, loadOlder } = media;
  useEffect(() => {
    if (at === 0 && hasMore && !loading && !failed) loadOlder();
  }, [at, hasMore, loading, failed, loadOlder]);
  const photo = at >= 0 ? photos[at] : undefined;
  const { url, error } = useOpenedAttachment(photo?.ref ?? null);
  const before = at > 0 ? photos[at - 1] : undefined;
  const after = at >= 0 && at < photos.length - 1 ? photos[at + 1] : undefined;
  // ← and → wherever the focus is (a button at the end goes disabled and drops it).
  const move = useRef(props.onMove);
  move.current = props.onMove;
  const beforeId = before?.msgId;
  const afterId = after?.msgId;
  useEffect(() => {
    if (!photo) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'ArrowLeft' && beforeId) move.current(beforeId);
      else if (e.key === 'ArrowRight' && afterId) move.current(afterId);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [photo, beforeId, afterId]);
  const alt = photo ? photoAlt(photo.caption, photo.fromMe ? 'you' : props.peerHandle) : '';
  return (
    <Dialog open={photo !== undefined} onOpenChange={(open) => (open ? undefined : props.onClose())}>
      <DialogContent className="max-w-[min(96vw,1200px)] border-0 bg-black/95 p-3 text-white sm:p-4">
        <DialogTitle className="text-sm font-medium">
          Photo {at + 1} of {photos.length}
        </DialogTitle>
        <DialogDescription className="sr-only">{alt}</DialogDescription>
        <div className="relative flex min-h-40 items-center justify-center">
          {url ? <img src={url} alt={alt} className="max-h-[75dvh] w-auto object-contain" /> : null}
          {error ? <p className="text-sm">{error}</p> : null}
          <Button
            variant="secondary"
            size="icon"
            aria-label="Previous photo"
            className="absolute left-1 rounded-full"
            disabled={!before}
            onClick={() => before && props.onMove(before.msgId)}
          >
            <ChevronLeft aria-hidden />
          </Button>
          <Button
            variant="secondary"
            size="icon"
            aria-label="Next photo"
            className="absolute right-1 rounded-full"
            disabled={!after}
            onClick={() => after && props.onMove(after.msgId)}
          >
            <ChevronRight aria-hidden />
          </Button>
        </div>
        <div className="flex items-center gap-3">
          <p className="min-w-0 flex-1 truncate text-sm">{photo?.caption}</p>
          <Button variant="secondary" onClick={() => photo && void downloadOrTell(client, photo.ref)}>
            <Download aria-hidden /> Download
          </Button>
        </div>
      </DialogContent>
    </Dialog>
  );
}
