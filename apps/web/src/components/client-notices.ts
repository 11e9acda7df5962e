/**
 * What the chat client tells the user (client/notices.ts), in words: each notice as a
 * toast. The texts are the app's (the browser tests read them).
 */
import type { ClientNotice } from '@/client/notices';
import { notify, notifyError } from './ui/toaster';

export interface NoticeToast {
  /** 'error': the destructive style (notifyError); 'success' otherwise. */
  tone: 'success' | 'error';
  title: string;
  text: string;
}

/** The toast that tells `notice`. */
export function noticeToast(notice: ClientNotice): NoticeToast {
  switch (notice.kind) {
    case 'server-error':
      return { tone: 'error', title: 'Error', text: notice.message };
    case 'request-sent': {
      const who = notice.username ? `@${notice.username}` : 'They';
      return { tone: 'success', title: 'Request Sent', text: `${who} can reply once they accept your request` };
    }
    case 'message-not-sent':
      return { tone: 'error', title: 'Message Not Sent', text: notice.reason };
  }
}

/** Shows `notice` as a toast. */
export function showClientNotice(notice: ClientNotice): void {
  const { tone, title, text } = noticeToast(notice);
  if (tone === 'error') notifyError(title, text);
  else notify(title, text);
}
