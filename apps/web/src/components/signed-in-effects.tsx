import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { useChatClient } from '@/hooks/chat-hooks';
import { useTitleBadge } from '@/hooks/use-title-badge';
import { startDesktopNotifications } from '@/lib/desktop-notifications';

/**
 * What runs on every signed-in screen: browser notifications while the tab is hidden, and
 * the unread count in the tab's title.
 */
export default function SignedInEffects() {
  const client = useChatClient();
  const navigate = useNavigate();
  useEffect(() => (client ? startDesktopNotifications(client, navigate) : undefined), [client, navigate]);
  useTitleBadge();
  return null;
}
