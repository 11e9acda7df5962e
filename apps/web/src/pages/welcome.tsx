import { APP_NAME } from '@app/protocol';
import { ShieldCheck, Users, Zap } from 'lucide-react';
import { useCallback, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { AppLogo } from '@/components/app-logo';
import { type Feature, FeatureList } from '@/components/feature-list';
import { Button } from '@/components/ui/button';
import { TINT } from '@/lib/tints';
import { cn } from '@/lib/utils';

const BENEFITS: Feature[] = [
  {
    icon: Users,
    title: 'Connect Instantly',
    text: 'Start conversations with anyone, anytime',
    tint: TINT.indigo,
  },
  {
    icon: ShieldCheck,
    title: 'Secure & Private',
    text: 'Your messages are encrypted and secure',
    tint: TINT.emerald,
  },
  {
    icon: Zap,
    title: 'Real-time Updates',
    text: 'See messages and status updates instantly',
    tint: TINT.amber,
  },
];

const STEPS = 2;

/** The two-step intro for signed-out visitors. Forward only: Next, then Let's Go!; Skip jumps to sign-up. */
export default function WelcomePage() {
  const [step, setStep] = useState<1 | 2>(1);
  const navigate = useNavigate();
  // Step two is only reached through Next: move focus to its heading so keyboard and screen-reader users follow.
  const focusOnMount = useCallback((el: HTMLHeadingElement | null) => el?.focus(), []);

  const toSignUp = () => navigate('/signup');

  return (
    <div className="brand-gradient flex min-h-full items-center justify-center px-4 py-8">
      <main className="flex w-full max-w-md flex-col gap-8 rounded-3xl bg-background p-6 shadow-2xl sm:p-8">
        {step === 1 ? (
          <section className="flex flex-col items-center gap-5 pt-4 text-center">
            <AppLogo className="size-20 rounded-3xl" />
            <div className="space-y-3">
              <h1 className="text-3xl font-bold tracking-tight outline-none">Welcome to {APP_NAME}</h1>
              <p className="text-base text-muted-foreground">
                Simple, fast messaging to stay close to your friends and family, wherever they are.
              </p>
            </div>
          </section>
        ) : (
          <section className="flex flex-col gap-6">
            <h1 ref={focusOnMount} tabIndex={-1} className="text-center text-3xl font-bold tracking-tight outline-none">
              Why {APP_NAME}?
            </h1>
            <FeatureList features={BENEFITS} heading="h2" />
          </section>
        )}

        <StepDots step={step} />

        <div className="flex flex-col gap-3">
          {step === 1 ? (
            <>
              <Button size="lg" onClick={() => setStep(2)}>
                Next
              </Button>
              <Button size="lg" variant="ghost" onClick={toSignUp}>
                Skip
              </Button>
            </>
          ) : (
            <Button size="lg" onClick={toSignUp}>
              Let's Go!
            </Button>
          )}
        </div>

        <p className="text-center text-sm text-muted-foreground">
          Already have an account?{' '}
          <Link to="/signin" className="font-medium text-primary underline-offset-4 hover:underline">
            Sign in
          </Link>
        </p>
      </main>
    </div>
  );
}

function StepDots({ step }: { step: number }) {
  return (
    <div className="flex justify-center gap-2">
      <span className="sr-only">
        Step {step} of {STEPS}
      </span>
      {Array.from({ length: STEPS }, (_, i) => i + 1).map((n) => (
        <span
          key={n}
          aria-hidden
          className={cn(
            'h-2 rounded-full transition-all',
            n === step ? 'w-6 bg-primary' : 'w-2 bg-muted-foreground/40',
          )}
        />
      ))}
    </div>
  );
}
