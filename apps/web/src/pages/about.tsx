import { APP_MAKER, APP_NAME, APP_VERSION, COPYRIGHT_YEAR } from '@app/protocol';
import { MessageCircle, ShieldCheck, Users } from 'lucide-react';
import { AppLogo } from '@/components/app-logo';
import { type Feature, FeatureList } from '@/components/feature-list';
import { PageShell } from '@/components/page-shell';
import { TINT } from '@/lib/tints';

const FEATURES: Feature[] = [
  {
    icon: ShieldCheck,
    title: 'Secure & Private',
    text: 'Passwords are hashed, sessions are protected and your data stays on the server you trust.',
    tint: TINT.emerald,
  },
  {
    icon: MessageCircle,
    title: 'Real-time Messaging',
    text: 'Messages, typing indicators and read receipts arrive the moment they happen.',
    tint: TINT.indigo,
  },
  {
    icon: Users,
    title: 'Connect with Anyone',
    text: 'Find friends and family by their username and start chatting straight away.',
    tint: TINT.sky,
  },
];

export default function AboutPage() {
  return (
    <PageShell title="About" back="history">
      <div className="flex flex-col items-center gap-8 py-4 text-center">
        <div className="flex flex-col items-center gap-3">
          <AppLogo className="size-20 rounded-3xl" />
          <h2 className="text-3xl font-bold tracking-tight">{APP_NAME}</h2>
          <p className="text-muted-foreground">by {APP_MAKER}</p>
          <p className="rounded-full bg-muted px-3 py-1 text-xs font-medium text-muted-foreground">
            Version {APP_VERSION}
          </p>
        </div>

        <section aria-labelledby="about-mission" className="max-w-prose space-y-2">
          <h3 id="about-mission" className="text-lg font-semibold">
            Our Mission
          </h3>
          <p className="text-sm leading-relaxed text-muted-foreground">
            We believe staying in touch should be simple, fast and private. {APP_NAME} helps people connect with the
            friends and family who matter most, on a messenger that anyone can run on a server they trust.
          </p>
        </section>

        <FeatureList features={FEATURES} heading="h3" across />

        <p className="text-xs text-muted-foreground">
          &copy; {COPYRIGHT_YEAR} {APP_MAKER}
        </p>
      </div>
    </PageShell>
  );
}
