/**
 * The action menu of a message in a chat: Reply, React and Forward for a message whose
 * text is open here (React once the server has it; Forward a photo or file once uploaded); Copy and Info always; Retry and Delete for a message of ours that was not
 * sent; Edit and Delete for one the server has.
 */
import { Copy, Forward, Info, Pencil, Reply, RotateCw, SmilePlus, Trash2 } from 'lucide-react';
import { useCallback, useMemo, useState } from 'react';
import type { ChatClient } from '@/client/chat-client';
import { getChatClient } from '@/client/chat-client-singleton';
import type { UiMessage } from '@/client/conversations/conversation';
import type { MenuAction, MenuAnchor } from '@/components/ui/action-menu';
import { notify, notifyError } from '@/components/ui/toaster';
import { copyText } from '@/lib/copy-text';

function copyAction(m: UiMessage): MenuAction {
  return {
    label: 'Copy',
    icon: Copy,
    onSelect: () =>
      copyText(getChatClient()?.crypto.plainText(m) ?? '').then(
        () => notify('Copied'),
        () => notifyError('Copy Failed', 'Your browser did not allow copying'),
      ),
  };
}

/** Not sent: it never reached the server, so Retry sends it again and Delete just drops it. */
function unsentActions(m: UiMessage, client: ChatClient | null): MenuAction[] {
  return [
    { label: 'Retry', icon: RotateCw, onSelect: () => client?.retryMessage(m.id) },
    { label: 'Delete', icon: Trash2, destructive: true, onSelect: () => client?.discardMessage(m.id) },
  ];
}

export function useMessageActions(client: ChatClient | null, myId: string | undefined) {
  const [menu, setMenu] = useState<{ message: UiMessage; anchor: MenuAnchor } | null>(null);
  const [infoId, setInfoId] = useState<string | null>(null);
  const [editing, setEditing] = useState<UiMessage | null>(null);
  const [replying, setReplying] = useState<UiMessage | null>(null);
  const [forwarding, setForwarding] = useState<UiMessage | null>(null);
  const [reacting, setReacting] = useState<{ message: UiMessage; anchor: MenuAnchor } | null>(null);
  const onReact = useCallback((message: UiMessage, anchor: MenuAnchor) => setReacting({ message, anchor }), []);
  const reply = useCallback((m: UiMessage) => {
    setEditing(null);
    setReplying(m);
  }, []);
  const onMenu = useCallback((message: UiMessage, anchor: MenuAnchor) => setMenu({ message, anchor }), []);
  const closeMenu = useCallback(() => setMenu(null), []);

  const actions = useMemo<MenuAction[]>(() => {
    if (!menu) return [];
    const m = menu.message;
    const list: MenuAction[] = [];
    const open = m.failed === undefined && client?.crypto.plainText(m) != null;
    if (open) {
      const anchor = menu.anchor;
      list.push({ label: 'Reply', icon: Reply, onSelect: () => reply(m) });
      // A reaction needs the message on the server.
      if (!m.pending)
        list.push({ label: 'React', icon: SmilePlus, onSelect: () => setReacting({ message: m, anchor }) });
      // A photo or file is forwarded from its blob on the server: once it is there.
      const shown = client?.crypto.shown(m);
      if (!(shown?.kind === 'text' && shown.attachments && m.pending))
        list.push({ label: 'Forward', icon: Forward, onSelect: () => setForwarding(m) });
    }
    list.push(copyAction(m), { label: 'Info', icon: Info, onSelect: () => setInfoId(m.id) });
    const mine = myId !== undefined && m.senderId === myId;
    if (mine && m.failed !== undefined) list.push(...unsentActions(m, client));
    else if (mine && !m.pending) {
      list.push(
        {
          label: 'Edit',
          icon: Pencil,
          onSelect: () => {
            setReplying(null);
            setEditing(m);
          },
        },
        {
          label: 'Delete',
          icon: Trash2,
          destructive: true,
          onSelect: () => {
            if (editing?.id === m.id) setEditing(null);
            if (replying?.id === m.id) setReplying(null);
            client?.deleteMessage(m).then(
              () => notify('Message Deleted', 'The message has been removed'),
              (e: unknown) => notifyError('Delete Failed', e instanceof Error ? e.message : undefined),
            );
          },
        },
      );
    }
    return list;
  }, [menu, myId, client, editing, replying, reply]);

  return {
    menu,
    actions,
    onMenu,
    closeMenu,
    infoId,
    setInfoId,
    editing,
    setEditing,
    replying,
    reply,
    setReplying,
    forwarding,
    setForwarding,
    reacting,
    onReact,
    closeReacting: () => setReacting(null),
  };
}
