/** An attachment opened (client/attachments/attachment-files.ts) for a screen: an object URL, revoked when no longer shown. */
import type { AttachmentRef } from '@app/e2ee';
import { useEffect, useState } from 'react';
import { AttachmentError } from '@/client/attachments/attachment-files';
import type { ChatClient } from '@/client/chat-client';
import { notifyError } from '@/components/ui/toaster';
import { useChatClient } from './chat-hooks';

export function useOpenedAttachment(ref: AttachmentRef | null): { url: string | null; error: string | null } {
  const client = useChatClient();
  const [state, setState] = useState<{ url: string | null; error: string | null }>({ url: null, error: null });
  useEffect(() => {
    setState({ url: null, error: null });
    if (!client || !ref?.id) return;
    let url: string | null = null;
    let live = true;
    client.files.open(ref).then(
      (blob) => {
        if (!live) return;
        url = URL.createObjectURL(blob);
        setState({ url, error: null });
      },
      (e: unknown) => {
        if (live) setState({ url: null, error: e instanceof AttachmentError ? e.message : 'Could not open the file.' });
      },
    );
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [client, ref]);
  return state;
}

/** Saves the attachment under its name (opened and checked first); why not, or null. */
export async function downloadAttachment(client: ChatClient | null, ref: AttachmentRef): Promise<string | null> {
  if (!client) return null;
  try {
    const url = URL.createObjectURL(await client.files.open(ref));
    const a = document.createElement('a');
    a.href = url;
    a.download = ref.name || 'file';
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : 'Could not open the file.';
  }
}

/** As downloadAttachment, saying why not in a toast. */
export async function downloadOrTell(client: ChatClient | null, ref: AttachmentRef): Promise<void> {
  const why = await downloadAttachment(client, ref);
  if (why) notifyError('Could not download the file', why);
}
