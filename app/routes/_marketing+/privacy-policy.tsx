import { json, type MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { StaticPage } from "~/components/layout/public-layout";
import { env } from "~/platform/env.server";

export const meta: MetaFunction = () => [
  { title: "Privacy Policy · Thoughtfully" },
  {
    name: "description",
    content:
      "What Thoughtfully keeps, why, where it lives and what you can do about it. No advertising, never sold.",
  },
];

export async function loader() {
  return json({ supportEmail: env.SUPPORT_EMAIL });
}

export default function PrivacyPolicy() {
  const { supportEmail } = useLoaderData<typeof loader>();
  return (
    <StaticPage title="Privacy Policy">
      <p className="text-sm text-stone-600!">Effective date: November 26, 2026</p>

      <p>
        Thoughtfully lets you save links, photos, files and short musings now and send them later,
        as one e-mail, to the people you choose. To do that we have to keep what you save until it
        is sent and know who it is for. This page explains, in plain language, what we keep, why,
        and what you can do about it.
      </p>
      <p>
        The short version: we keep only what the service needs, we never sell it, and there is no
        advertising. The only counting of what people do is the opens and clicks a Premium sender
        sees for their own e-mails, and those e-mails say so.
      </p>

      <h2>What we collect</h2>
      <ul>
        <li>
          <strong>Your account:</strong> your first and last name, e-mail address, time zone,
          password (stored only as a one-way hash, never the password itself) and whether you are on
          the free or premium plan. If you use a third-party sign-in, we receive your name, e-mail
          address and an account identifier from that provider.
        </li>
        <li>
          <strong>Sign-in security:</strong> for each session, when it began and the IP address and
          browser it came from; if you turn on two-factor sign-in, its secret and your recovery
          codes (stored only as hashes); for each passkey, its name and public key; access tokens
          for the browser extension or the API, stored only as hashes.
        </li>
        <li>
          <strong>What you save:</strong> the links, titles, musings, photos and files you add, and
          your folders' names, schedules and sign-offs.
        </li>
        <li>
          <strong>Mail you send to a folder's address:</strong> if you ask for a folder's own e-mail
          address, we read each message that arrives at it. When it comes from your account's
          address and passes the usual checks that it really is yours (DMARC, DKIM or SPF), its
          links, words, photos and files become items in that folder, and of the message itself we
          keep only its Message-ID (or a fingerprint of it), so it is never saved twice. Any other
          message is dropped without an answer; we record that one was refused and why, as a
          security event, not what it said.
        </li>
        <li>
          <strong>Your recipients:</strong> the names and e-mail addresses you enter for each
          folder, and whether a recipient has unsubscribed (with the reason, if they chose to give
          one).
        </li>
        <li>
          <strong>Delivery records:</strong> when each e-mail was sent, to which address, how many
          items it held, how large it was, and whether delivery failed or bounced. For a Premium
          sender's e-mails, also how often each copy was opened and its links clicked (see
          Recipients below).
        </li>
        <li>
          <strong>Recipients' hearts and notes:</strong> when someone you send to answers an item,
          the heart or the note they wrote, which item it answers, the address your e-mail went to
          and when.
        </li>
        <li>
          <strong>Security logs:</strong> the IP address and browser user agent that come with
          sign-ins, failed sign-ins, password resets, unsubscribes, rejected uploads and other
          security-relevant events.
        </li>
      </ul>

      <h2>How we use it</h2>
      <p>Only to run Thoughtfully:</p>
      <ul>
        <li>to store what you save and send each folder to its recipients on your schedule;</li>
        <li>to sign you in and keep your account and the service secure;</li>
        <li>
          to send you the e-mails the service needs, such as verifying your address, resetting your
          password or telling you that a message bounced;
        </li>
        <li>to manage your subscription if you upgrade, and to answer you when you write to us.</li>
      </ul>
      <p>
        We do not use your data for advertising or profiling. We do not browse what you save: the
        people who run Thoughtfully look at it only when that is needed to keep the service working,
        to deal with abuse, or because you asked us for help.
      </p>

      <h2>Recipients</h2>
      <p>
        If you received an e-mail from Thoughtfully, it is because someone you know added your
        address to one of their folders. You never signed up with us, so we do as little as we can
        with it: we use your name and address only to send you that person's e-mails, and a reply
        goes to them, not to us.
      </p>
      <p>
        Each e-mail has a "View in your browser" link to a copy of it made for you alone. It works
        while the sender keeps that e-mail and you stay subscribed, and shows its photos and files
        for as long as we keep them (30 days after it was sent).
      </p>
      <p>
        <strong>Opens and clicks.</strong> If the sender is on Premium, their e-mail carries a tiny
        image and its links pass through our address first, so that we can tell them when it was
        opened and which links were clicked. The footer of such an e-mail says so. For your copy we
        record how many times it was opened, the first and last time, the name of the mail app or
        browser that last opened it, and how many clicks it had, with no IP address. The app's name
        is forgotten 90 days after the e-mail was sent; the counts are kept until the sender deletes
        that folder or their account. A free sender's e-mails carry none of this, nor does the
        plain-text version of any e-mail, and nothing more is counted once you unsubscribe.
      </p>
      <p>
        Every e-mail has its own unsubscribe link. You can unsubscribe with one click from your mail
        app, or open the link to choose between that folder and everything from Thoughtfully. After
        that we send you nothing more. A sender may ask for you to be re-subscribed, but that only
        sends you a single e-mail with a link: you are re-subscribed only if you follow it yourself.
      </p>

      <h2>Hearts and notes from recipients</h2>
      <p>
        Every item in a Thoughtfully e-mail, and in its web version, has a link to send its sender a
        heart or a short note, without an account. Opening that link records nothing, because mail
        apps and security scanners open links on their own: only pressing the heart button or
        sending a note does. We then keep the heart or the note as it was written, which item of
        which e-mail it answers, the address that e-mail was sent to, and when.
      </p>
      <p>
        It goes only to the person who sent the e-mail, never to its other recipients: the sender
        sees it in their Sent archive, and by e-mail from us (gathered once a day, each note at
        once, or not at all, as they choose), with a link to reply from their own mail. The page
        shows a recipient only their own notes. A heart can be taken back by pressing again. Hearts
        and notes are deleted when the sender deletes that e-mail from their Sent archive, its
        folder or their account. Unsubscribing ends the links: after that they record nothing, and
        what was sent before stays with the sender until it is deleted as above.
      </p>

      <h2>Where your data lives</h2>
      <p>
        Thoughtfully runs on a single server hosted by Fly.io. Your account, folders and delivery
        records are kept in a database on that server, and uploaded files are stored on its disk
        under random names, never your file's name. Photos have their EXIF metadata, including GPS
        location, removed when they are uploaded. Your files are served to you when you are signed
        in and, once sent, to your recipients through the links in their own e-mail; to no one else.
      </p>
      <p>
        When a folder is sent, its items move to the folder's Sent archive. Their text is kept until
        you delete that e-mail from the archive, the folder or your account; their photos and files
        are kept for 30 days after the send, so the archive and the web version can show them, and
        are then deleted from the server. The database is backed up daily and each backup is kept
        for 7 days, so something you delete may remain in a backup for up to a week before it is
        gone for good.
      </p>

      <h2>Cookies</h2>
      <p>
        We set only our own cookies, each for one job, and only when that job needs it. Scripts on
        the page cannot read any of them (they are HttpOnly), and on the live site most names begin
        with <code>__Host-</code>, which ties them to our address. There are no analytics,
        advertising or third-party cookies.
      </p>
      <ul>
        <li>
          <code>thoughtfully_session</code> keeps you signed in. It points to a session stored on
          our server and lasts 30 days from your last visit; signing out ends it.
        </li>
        <li>
          <code>thoughtfully_csrf</code> is given to a visitor who is not signed in, such as a
          recipient sending a heart, so that our forms cannot be sent from another site. It holds a
          random value and lasts 30 days.
        </li>
        <li>
          <code>thoughtfully_toast</code> carries the short message shown after an action, such as
          "Folder saved", to the next page, and is deleted once it has been shown.
        </li>
        <li>
          <code>thoughtfully_sign_up</code> lets the browser you signed up in be signed in when you
          verify your address there, and name the address we wrote to. It lasts an hour.
        </li>
        <li>
          <code>thoughtfully_2fa_pending</code> remembers, for 10 minutes, that your password was
          right while you enter your two-factor code.
        </li>
        <li>
          <code>thoughtfully_2fa_trust</code> is set only if you choose "Trust this device for 30
          days" and lasts that long; turning two-factor off, setting it up again or resetting your
          password ends it.
        </li>
        <li>
          <code>thoughtfully_webauthn</code> holds the one-time challenge of a passkey sign-in or
          set-up, for 5 minutes.
        </li>
        <li>
          <code>thoughtfully_oauth</code> holds the state of a sign-in with a third-party provider
          while you are away at it, for 5 minutes.
        </li>
        <li>
          <code>thoughtfully_draft</code> keeps what you typed into a form when you had been signed
          out before it was saved (never passwords or files), so it is back after you sign in again.
          It lasts 15 minutes and is used once.
        </li>
        <li>
          <code>thoughtfully_banner</code> remembers, for a year, that you dismissed an
          announcement.
        </li>
      </ul>

      <h2>Sharing</h2>
      <p>We share data only with the services that make Thoughtfully work:</p>
      <ul>
        <li>
          <strong>Stripe</strong> handles payments. You enter your card details on Stripe's pages;
          they never reach us. We receive only a customer reference and your subscription status.
        </li>
        <li>
          <strong>Our e-mail provider</strong> delivers the messages, so it handles recipients'
          addresses and the content of each e-mail, and, if it receives the mail sent to folders'
          own addresses, those messages too.
        </li>
        <li>
          <strong>Fly.io</strong> hosts the server the service runs on.
        </li>
        <li>
          <strong>Your sign-in provider</strong>, only if you choose to sign in with one.
        </li>
      </ul>
      <p>
        We never sell your data or the data of your recipients, and we never share it with
        advertisers. We disclose data to authorities only when the law requires it.
      </p>

      <h2>Your choices</h2>
      <ul>
        <li>
          Change your name and time zone at any time in <Link to="/profile">Profile Settings</Link>.
        </li>
        <li>Edit or remove items, folders and recipients whenever you like.</li>
        <li>
          Delete a sent e-mail from a folder's Sent archive: its text, files and recipients' hearts
          and notes go at once.
        </li>
        <li>
          Choose, in each folder's settings, whether recipients' hearts and notes reach you by
          e-mail once a day, each note at once, or not at all.
        </li>
        <li>
          Download a copy of your data at any time with Download my data in{" "}
          <Link to="/profile">Profile Settings</Link>: a ZIP file with your folders, recipients,
          items and files.
        </li>
        <li>
          Delete your account in Profile Settings under Delete Account. This removes, at once, every
          folder, item, uploaded file and session, your profile and your delivery schedules, and
          ends your subscription. Only the 7-day backups remain, until they expire.
        </li>
        <li>For any other request, write to us at the address below.</li>
      </ul>

      <h2>Security</h2>
      <p>
        Connections are encrypted with HTTPS, passwords are hashed, sign-in attempts are
        rate-limited, and every upload is checked by its contents, not just its name, before it is
        accepted. No system is perfectly secure; if we learn of a breach that affects your data, we
        will tell you promptly.
      </p>

      <h2>Children</h2>
      <p>
        Thoughtfully is not meant for children under 13, and we do not knowingly collect their data.
        If you believe a child has created an account, write to us and we will delete it.
      </p>

      <h2>Changes</h2>
      <p>
        If this policy changes, we will update the effective date at the top of this page. For
        significant changes we will also e-mail account holders before they take effect.
      </p>

      <h2>Contact</h2>
      <p>
        Questions about your privacy or this policy? Write to{" "}
        <a href={`mailto:${supportEmail}`}>{supportEmail}</a>.
      </p>
    </StaticPage>
  );
}
