import { lazy, Suspense, useEffect } from 'react';
import { Route, Routes } from 'react-router';
import { onClientNotice } from './client/notices';
import { showClientNotice } from './components/client-notices';
import { RequireAdmin, RequireAuth } from './components/guards';
import { KeyboardHost } from './components/keyboard/keyboard-host';
import { SkipLink } from './components/skip-link';
import { Spinner } from './components/spinner';
import { Toaster } from './components/ui/toaster';
import { getSession, refreshSession } from './lib/session';
import SplashPage from './pages/splash';

// What the chat client tells the user (client/notices.ts) is shown as a toast, on any screen.
onClientNotice(showClientNotice);

// Every screen but the splash is its own chunk, so the first screen stays small.
const WelcomePage = lazy(() => import('./pages/welcome'));
const SignUpPage = lazy(() => import('./pages/sign-up'));
const SignInPage = lazy(() => import('./pages/sign-in'));
const ForgotPasswordPage = lazy(() => import('./pages/forgot-password'));
const ResetPasswordPage = lazy(() => import('./pages/reset-password'));
const VerifyEmailPage = lazy(() => import('./pages/verify-email'));
const HomePage = lazy(() => import('./pages/home'));
const ContactsPage = lazy(() => import('./pages/contacts'));
const SettingsPage = lazy(() => import('./pages/settings'));
const AccountPage = lazy(() => import('./pages/account'));
const TermsPage = lazy(() => import('./pages/terms'));
const PrivacyPage = lazy(() => import('./pages/privacy'));
const AboutPage = lazy(() => import('./pages/about'));
const AdminPage = lazy(() => import('./pages/admin'));
const BlockedPage = lazy(() => import('./pages/blocked'));
const NotFoundPage = lazy(() => import('./pages/not-found'));
const ProfilePage = lazy(() => import('./pages/profile'));
const PrivacySettingsPage = lazy(() => import('./pages/privacy-settings'));
const SessionsPage = lazy(() => import('./pages/sessions'));
const TwoStepPage = lazy(() => import('./pages/two-step'));
const ArchivePage = lazy(() => import('./pages/archive'));
const LockedPage = lazy(() => import('./pages/locked'));
const NotificationsPage = lazy(() => import('./pages/notifications'));
// The signed-in layout (one screen on a phone, two panes on a wide window).
const TwoPane = lazy(() => import('./components/layout/two-pane'));

export function App() {
  // main.tsx asked already; a tree mounted without it (a test) asks here. Once answered,
  // not again: the answer of the preloaded request (route-preloads.ts) is this one.
  useEffect(() => {
    if (getSession().status === 'loading') void refreshSession();
  }, []);
  return (
    <>
      <SkipLink />
      <Suspense fallback={<Spinner fullScreen />}>
        <Routes>
          <Route path="/" element={<SplashPage />} />
          <Route path="/welcome" element={<WelcomePage />} />
          <Route path="/signup" element={<SignUpPage />} />
          <Route path="/signin" element={<SignInPage />} />
          <Route path="/forgot-password" element={<ForgotPasswordPage />} />
          <Route path="/reset-password" element={<ResetPasswordPage />} />
          <Route path="/verify-email" element={<VerifyEmailPage />} />
          <Route path="/terms" element={<TermsPage />} />
          <Route path="/privacy" element={<PrivacyPage />} />
          {/* About: alone for a visitor; signed in, in the left pane, as Settings' other screens. */}
          <Route element={<RequireAuth visitor={<AboutPage />} />}>
            <Route element={<TwoPane />}>
              <Route path="/about" element={<AboutPage />} />
            </Route>
          </Route>
          <Route path="/blocked" element={<BlockedPage />} />
          <Route element={<RequireAuth />}>
            <Route element={<TwoPane />}>
              <Route path="/home" element={<HomePage />} />
              {/* The layout draws the conversation; the route's element is the list beside it. */}
              <Route path="/chat/:userId" element={<HomePage />} />
              <Route path="/contacts" element={<ContactsPage />} />
              <Route path="/settings" element={<SettingsPage />} />
              <Route path="/account" element={<AccountPage />} />
              <Route path="/profile" element={<ProfilePage />} />
              <Route path="/privacy-settings" element={<PrivacySettingsPage />} />
              <Route path="/sessions" element={<SessionsPage />} />
              <Route path="/two-step" element={<TwoStepPage />} />
              <Route path="/archive" element={<ArchivePage />} />
              <Route path="/locked" element={<LockedPage />} />
              <Route path="/notifications" element={<NotificationsPage />} />
            </Route>
            <Route element={<RequireAdmin />}>
              <Route path="/admin" element={<AdminPage />} />
            </Route>
          </Route>
          <Route path="*" element={<NotFoundPage />} />
        </Routes>
      </Suspense>
      <Toaster />
      <KeyboardHost />
    </>
  );
}
