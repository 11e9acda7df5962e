import { APP_VERSION } from '@app/protocol';
import { CircleHelp, Info, Keyboard, KeyRound, Laptop, Lock, ShieldCheck, Tag, UserRound } from 'lucide-react';
import { DownloadDataRow } from '@/components/download-data-row';
import { showKeyboardShortcuts } from '@/components/keyboard/keyboard-host';
import { NotificationsSection } from '@/components/notifications-section';
import { PageShell } from '@/components/page-shell';
import { SettingsGroup, SettingsRow } from '@/components/settings-row';
import { AppearanceSection } from '@/components/theme-picker';
import { UserAvatar } from '@/components/user-avatar';
import { useCoarsePointer } from '@/hooks/use-coarse-pointer';
import { useHelpLink } from '@/hooks/use-public-settings';
import { useSession } from '@/hooks/use-session';
import { TINT } from '@/lib/tints';

export default function SettingsPage() {
  const { user } = useSession();
  const helpLink = useHelpLink();
  // The shortcuts need a keyboard: not listed where the pointer is a finger.
  const touch = useCoarsePointer();

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
          <SettingsRow kind="link" to="/profile" icon={UserRound} label="Profile" tint={TINT.indigo} />
        </li>
        <li>
          <SettingsRow kind="link" to="/account" icon={KeyRound} label="Account" tint={TINT.sky} />
        </li>
        <li>
          <SettingsRow kind="link" to="/privacy-settings" icon={Lock} label="Privacy" tint={TINT.emerald} />
        </li>
        <li>
          <SettingsRow
            kind="link"
            to="/two-step"
            icon={ShieldCheck}
            label="Two-step verification"
            tint={TINT.emerald}
          />
        </li>
        <li>
          <SettingsRow kind="link" to="/sessions" icon={Laptop} label="Where you're signed in" tint={TINT.rose} />
        </li>
        <li>
          <DownloadDataRow />
        </li>
      </SettingsGroup>

      <AppearanceSection />

      <NotificationsSection />

      <SettingsGroup>
        <li>
          {helpLink ? (
            <SettingsRow kind="external" href={helpLink} icon={CircleHelp} label="Help" tint={TINT.amber} />
          ) : (
            <SettingsRow
              kind="static"
              icon={CircleHelp}
              label="Help"
              tint={TINT.amber}
              badge={helpLink === null ? 'Coming Soon' : undefined}
            />
          )}
        </li>
        {touch ? null : (
          <li>
            <SettingsRow
              kind="button"
              onClick={showKeyboardShortcuts}
              icon={Keyboard}
              label="Keyboard shortcuts"
              tint={TINT.teal}
            />
          </li>
        )}
        <li>
          <SettingsRow kind="link" to="/about" icon={Info} label="About" tint={TINT.violet} />
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
