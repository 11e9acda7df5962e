import type { NotificationItem as Item } from '@app/protocol';
import { BellOff } from 'lucide-react';
import { useEffect, useState } from 'react';
import { ConnectionBar } from '@/components/connection-bar';
import { NotificationItem, type RespondState } from '@/components/notification-item';
import { NotificationPrompt } from '@/components/notification-prompt';
import { PageShell } from '@/components/page-shell';
import { Spinner } from '@/components/spinner';
import { Button } from '@/components/ui/button';
import { notify, notifyError } from '@/components/ui/toaster';
import { useChatClient, useConnectionStatus, useDocumentVisible, useNotifications } from '@/hooks/chat-hooks';

type RequestItem = Extract<Item, { type: 'request' }>;

export default function NotificationsPage() {
  const client = useChatClient();
  const view = useNotifications();
  const connection = useConnectionStatus();
  const visible = useDocumentVisible();
  const { items, unseen, status } = view;

  // Open and visible: everything so far is seen, so the bell clears (again when more arrive).
  useEffect(() => {
    if (client && connection === 'online' && visible && status === 'ready' && unseen > 0) {
      void client.notifications.markSeen();
    }
  }, [client, connection, visible, status, unseen]);

  // Items that were new when they reached this page stay highlighted while it is open,
  // although marking them seen turns their `read` flag on straight away.
  const [fresh, setFresh] = useState<ReadonlySet<string>>(() => new Set());
  useEffect(() => {
    const added = items.filter((n) => !n.read && !fresh.has(n.id));
    if (added.length > 0) setFresh((prev) => new Set([...prev, ...added.map((n) => n.id)]));
  }, [items, fresh]);

  const [responding, setResponding] = useState<ReadonlyMap<string, RespondState>>(() => new Map());
  const setRespond = (id: string, state: RespondState) =>
    setResponding((prev) => {
      const next = new Map(prev);
      if (state === 'idle') next.delete(id);
      else next.set(id, state);
      return next;
    });

  const respond = async (item: RequestItem, accept: boolean) => {
    if (!client || responding.has(item.id)) return;
    setRespond(item.id, accept ? 'accepting' : 'declining');
    try {
      await client.notifications.respond(item.id, accept);
      if (accept) notify('Request Accepted', 'You can now message each other');
      else notify('Request Declined');
    } catch (e) {
      notifyError(
        accept ? 'Could Not Accept Request' : 'Could Not Decline Request',
        e instanceof Error ? e.message : 'Please try again',
      );
    } finally {
      setRespond(item.id, 'idle');
    }
  };

  return (
    <PageShell title="Notifications" back="/home" className="flex flex-col gap-4">
      <div className="-mx-4 -mt-4 md:-mx-6 md:-mt-6 md:mb-2">
        <ConnectionBar />
      </div>
      <NotificationPrompt />
      {items.length > 0 ? (
        <ul aria-label="Notifications" className="flex flex-col gap-3">
          {items.map((item) => (
            <li key={item.id}>
              <NotificationItem
                item={item}
                highlight={!item.read || fresh.has(item.id)}
                respond={responding.get(item.id) ?? 'idle'}
                onRespond={respond}
              />
            </li>
          ))}
        </ul>
      ) : status === 'error' ? (
        <div role="alert" className="flex flex-1 flex-col items-center justify-center gap-3 py-16 text-center">
          <p className="text-lg font-semibold">Could not load notifications</p>
          {view.error ? <p className="text-sm text-muted-foreground">{view.error}</p> : null}
          <Button variant="outline" onClick={() => void client?.notifications.load()}>
            Try again
          </Button>
        </div>
      ) : status !== 'ready' ? (
        <div className="flex flex-1 items-center justify-center py-16">
          <Spinner />
        </div>
      ) : (
        <div className="flex flex-1 flex-col items-center justify-center gap-3 py-16 text-center">
          <span className="flex size-16 items-center justify-center rounded-full bg-secondary text-primary">
            <BellOff className="size-8" aria-hidden />
          </span>
          <p className="text-lg font-semibold">No notifications</p>
          <p className="max-w-xs text-sm text-muted-foreground">Message requests and announcements will appear here.</p>
        </div>
      )}
    </PageShell>
  );
}
