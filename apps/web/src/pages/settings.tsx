import { APP_VERSION, isSafeHttpUrl } from '@app/protocol';
import { CircleHelp, Info, KeyRound, Lock, Tag, UserRound } from 'lucide-react';
import { useEffect, useState } from 'react';
import { PageShell } from '@/components/page-shell';
import { SettingsGroup, SettingsRow } from '@/components/settings-row';
import { UserAvatar } from '@/components/user-avatar';
import { useSession } from '@/lib/session';
import { publicSettings } from '@/lib/social-api';

/** The administrator's help link, when one is set and safe to open; undefined while loading. */
function useHelpLink(): string | null | undefined {
  const [link, setLink] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    publicSettings()
      .then((s) => {
        if (live) setLink(s.helpLink && isSafeHttpUrl(s.helpLink) ? s.helpLink : null);
      })
      .catch(() => {
        if (live) setLink(null);
      });
    return () => {
      live = false;
    };
  }, []);
  return link;
}

export default function SettingsPage() {
  const { user } = useSession();
  const helpLink = useHelpLink();

  return (
    <PageShell title="Settings" back="/home" className="space-y-6">
      {user ? (
        <div className="flex items-center gap-4 rounded-2xl border border-border p-4">
          <UserAvatar name={user.name || user.username} src={user.profilePic} size="lg" />
          <div className="min-w-0">
            <p className="truncate text-lg font-semibold">{user.name}</p>
            <p className="truncate text-sm text-muted-foreground">@{user.username}</p>
          </div>
        </div>
      ) : null}

      <SettingsGroup>
        <li>
          <SettingsRow
            kind="link"
            to="/profile"
            icon={UserRound}
            label="Profile"
            tint="bg-indigo-100 text-indigo-700"
          />
        </li>
        <li>
          <SettingsRow kind="link" to="/account" icon={KeyRound} label="Account" tint="bg-sky-100 text-sky-700" />
        </li>
        <li>
          <SettingsRow
            kind="link"
            to="/privacy-settings"
            icon={Lock}
            label="Privacy"
            tint="bg-emerald-100 text-emerald-700"
          />
        </li>
      </SettingsGroup>

      <SettingsGroup>
        <li>
          {helpLink ? (
            <SettingsRow
              kind="external"
              href={helpLink}
              icon={CircleHelp}
              label="Help"
              tint="bg-amber-100 text-amber-700"
            />
          ) : (
            <SettingsRow
              kind="static"
              icon={CircleHelp}
              label="Help"
              tint="bg-amber-100 text-amber-700"
              badge={helpLink === null ? 'Coming Soon' : undefined}
            />
          )}
        </li>
        <li>
          <SettingsRow kind="link" to="/about" icon={Info} label="About" tint="bg-violet-100 text-violet-700" />
        </li>
        <li>
          <SettingsRow
            kind="static"
            icon={Tag}
            label="Version"
            value={APP_VERSION}
            tint="bg-muted text-muted-foreground"
          />
        </li>
      </SettingsGroup>
    </PageShell>
  );
}
