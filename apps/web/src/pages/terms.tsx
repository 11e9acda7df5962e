import { AGE_MIN, APP_NAME } from '@app/protocol';
import { Link } from 'react-router';
import { LegalSection } from '@/components/legal-section';
import { PageShell } from '@/components/page-shell';

/** Terms of Service: static text. "Operator" is whoever runs this self-hosted server. */
export default function TermsPage() {
  return (
    <PageShell title="Terms of Service" back="history">
      <article className="space-y-6">
        <p className="text-sm leading-relaxed text-muted-foreground">
          {APP_NAME} is messaging software that anyone can run on their own server. These terms apply to the {APP_NAME}{' '}
          service on this server, which is provided to you by the person or organisation that runs it (the
          &ldquo;operator&rdquo;).
        </p>

        <LegalSection title="1. Acceptance of Terms">
          <p>
            By creating an account or using {APP_NAME}, you agree to these Terms of Service and to our{' '}
            <Link to="/privacy">Privacy Policy</Link>. If you do not agree, please do not use the service.
          </p>
        </LegalSection>

        <LegalSection title="2. Accounts">
          <p>You must be at least {AGE_MIN} years old to create an account.</p>
          <ul>
            <li>Give accurate information when you sign up and keep it up to date.</li>
            <li>
              Keep your password and chat PIN to yourself. You are responsible for what happens under your account.
            </li>
            <li>Your username is permanent and must not impersonate another person or organisation.</li>
            <li>If you think someone else has accessed your account, change your password straight away.</li>
          </ul>
        </LegalSection>

        <LegalSection title="3. Conduct">
          <p>Treat other people with respect. When using {APP_NAME} you must not:</p>
          <ul>
            <li>harass, threaten, bully or impersonate anyone;</li>
            <li>send spam, scams or unsolicited bulk messages;</li>
            <li>share content that is illegal or that infringes the rights of others;</li>
            <li>try to access other accounts or data, or to disrupt, overload or probe the service.</li>
          </ul>
        </LegalSection>

        <LegalSection title="4. Privacy">
          <p>
            Your messages and account details are stored on the operator&rsquo;s server. The{' '}
            <Link to="/privacy">Privacy Policy</Link> explains what we collect, how we use it and the choices you have.
          </p>
        </LegalSection>

        <LegalSection title="5. Termination">
          <p>
            You can delete your account at any time from Settings &rsaquo; Account. The operator may block or remove an
            account that breaks these terms; a blocked account can no longer sign in. The operator may also stop running
            the service.
          </p>
        </LegalSection>

        <LegalSection title="6. Changes">
          <p>
            We may update these terms from time to time. When we make significant changes we will let you know in the
            app. If you keep using {APP_NAME} after a change, you accept the updated terms.
          </p>
        </LegalSection>
      </article>
    </PageShell>
  );
}
