import { APP_NAME } from '@app/protocol';
import { Link } from 'react-router';
import { LegalSection } from '@/components/legal-section';
import { PageShell } from '@/components/page-shell';

/** Privacy Policy: static text for a self-hosted server, where the operator holds the data. */
export default function PrivacyPage() {
  return (
    <PageShell title="Privacy Policy" back="history">
      <article className="space-y-6">
        <p className="text-sm leading-relaxed text-muted-foreground">
          This policy explains what the {APP_NAME} service on this server collects and why. {APP_NAME} is self-hosted:
          your data is kept on the server of the person or organisation that runs it (the &ldquo;operator&rdquo;), not
          by a third-party company.
        </p>

        <LegalSection title="1. Information We Collect">
          <ul>
            <li>
              <strong className="font-medium text-foreground">Account details</strong> you give us: your name, email
              address, phone number, age and username, and a profile picture link if you add one.
            </li>
            <li>
              <strong className="font-medium text-foreground">Your messages, end-to-end encrypted</strong>: the server
              stores and relays them only in a form that the two people in a chat can open, and their details: who sent
              them, when, about how long they are, and whether they were delivered and read.
            </li>
            <li>
              <strong className="font-medium text-foreground">Your settings</strong>: privacy choices, archived and
              locked chats, contacts and contact requests.
            </li>
            <li>
              <strong className="font-medium text-foreground">Technical data</strong>: your online status and last seen
              time, and short-lived server logs (such as IP address and time of a request) used to keep the service
              secure.
            </li>
          </ul>
        </LegalSection>

        <LegalSection title="2. How We Use It">
          <p>
            Only to run {APP_NAME}: to deliver your messages, let other people find you by your username, show your
            profile and status to the people you chat with, send you verification and password-reset emails, and protect
            the service against abuse. We do not show advertising and do not build profiles of you.
          </p>
        </LegalSection>

        <LegalSection title="3. Sharing">
          <p>Your data is not sold, rented or shared with advertisers.</p>
          <ul>
            <li>
              Other users can see your username, name, profile picture and verified badge, and your online status and
              last seen time unless you turn them off in Privacy settings.
            </li>
            <li>The people you chat with see the messages you send them.</li>
            <li>The administrator of this server can see your email address in order to moderate accounts.</li>
            <li>We disclose information only where the law requires it.</li>
          </ul>
        </LegalSection>

        <LegalSection title="4. Security">
          <p>
            Messages are end-to-end encrypted: your browser seals each message with keys that only you and the person
            you write to hold, so the operator, its database and its backups see ciphertext only. Your password never
            leaves your browser: it unlocks your keys there, and the server keeps only a value derived from it (hashed
            with argon2id), like the chat PIN.
          </p>
          <p>
            What the server can see: who talks to whom and when, roughly how long messages are, edits and deletions,
            delivery and read receipts, typing, online status, profiles, contacts and requests, and administrator
            announcements (which are not encrypted). A chat PIN hides chats on this server; it is not encryption. Like
            every web messenger, the encryption trusts the app your browser loads from this server. You stay signed in
            through a session cookie marked httpOnly. No system is perfectly secure, so please use a strong, unique
            password.
          </p>
        </LegalSection>

        <LegalSection title="5. Your Rights">
          <ul>
            <li>See and correct your details in Settings &rsaquo; Profile and Settings &rsaquo; Account.</li>
            <li>Control who sees your status and read receipts in Settings &rsaquo; Privacy.</li>
            <li>
              Delete your account at any time in Settings &rsaquo; Account; this removes your account and data from the
              server.
            </li>
            <li>Ask the operator for a copy of your data, or exercise any other right the law gives you.</li>
          </ul>
        </LegalSection>

        <LegalSection title="6. Changes">
          <p>
            We may update this policy. When we make significant changes we will let you know in the app before they take
            effect. The <Link to="/terms">Terms of Service</Link> tell you more about using the service.
          </p>
        </LegalSection>

        <LegalSection title="7. Contact">
          <p>
            For questions about this policy or your data, contact the operator of this {APP_NAME} server through the
            Help link in Settings.
          </p>
        </LegalSection>
      </article>
    </PageShell>
  );
}
