import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { useChatClient } from '@/lib/chat-hooks';
import { startDesktopNotifications } from '@/lib/desktop-notifications';

/** What runs on every signed-in screen: browser notifications while the tab is hidden. */
export default function SignedInEffects() {
  const client = useChatClient();
  const navigate = useNavigate();
  useEffect(() => (client ? startDesktopNotifications(client, navigate) : undefined), [client, navigate]);
  return null;
}
