import { APP_NAME } from '@app/protocol';
import { ArrowLeft } from 'lucide-react';
import type * as React from 'react';
import { Link, useNavigate } from 'react-router';
import { AppLogo } from './app-logo';
import { Button } from './ui/button';

/** The product mark and name, linking to the start. */
export function BrandLogo() {
  return (
    <Link
      to="/"
      className="flex items-center gap-2 rounded-lg text-white focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-white"
    >
      <AppLogo onGradient className="size-10 rounded-xl" />
      <span className="text-2xl font-bold tracking-tight">{APP_NAME}</span>
    </Link>
  );
}

/**
 * The frame of the signed-out screens (sign-up, sign-in, password reset, e-mail
 * verification): the brand gradient behind a white card. On a phone the card
 * fills the width and the rest of the screen; on a wide screen it is centred.
 */
export function AuthLayout({
  title,
  subtitle,
  back,
  children,
  footer,
}: {
  title: string;
  subtitle?: React.ReactNode;
  /** A path the back button goes to; no back button without it. */
  back?: string;
  children: React.ReactNode;
  /** Shown under the card's content, e.g. "Already have an account? Sign in". */
  footer?: React.ReactNode;
}) {
  const navigate = useNavigate();
  return (
    <div className="brand-gradient flex min-h-full flex-col items-center sm:justify-center sm:px-6 sm:py-10">
      <div className="flex w-full max-w-md flex-1 flex-col sm:flex-none">
        <header className="relative flex h-20 shrink-0 items-center justify-center px-4 sm:h-auto sm:pb-6">
          {back ? (
            <Button
              variant="ghost"
              size="icon"
              aria-label="Back"
              className="absolute left-2 text-white hover:bg-white/15 hover:text-white sm:-left-1 sm:top-0 [&_svg]:size-5"
              onClick={() => navigate(back)}
            >
              <ArrowLeft />
            </Button>
          ) : null}
          <BrandLogo />
        </header>
        <main
          id="main"
          className="flex flex-1 flex-col rounded-t-3xl bg-background px-5 pb-8 pt-7 shadow-xl sm:flex-none sm:rounded-2xl sm:px-8 sm:pb-8"
        >
          <h1 className="text-2xl font-bold tracking-tight">{title}</h1>
          {subtitle ? <p className="mt-1 text-sm text-muted-foreground">{subtitle}</p> : null}
          <div className="mt-6">{children}</div>
          {footer ? <div className="mt-6 text-center text-sm text-muted-foreground">{footer}</div> : null}
        </main>
      </div>
    </div>
  );
}
