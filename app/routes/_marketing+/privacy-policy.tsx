import { json, type MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { StaticPage } from "~/components/public-layout";
import { env } from "~/platform/env.server";

export const meta: MetaFunction = () => [
  { title: "Privacy Policy · Thoughtfully" },
  {
    name: "description",
    content:
      "What Thoughtfully keeps, why, where it lives and what you can do about it. No advertising, no tracking, never sold.",
  },
];

export async function loader() {
  return json({ supportEmail: env.SUPPORT_EMAIL });
}

export default function PrivacyPolicy() {
  const { supportEmail } = useLoaderData<typeof loader>();
  return (
    <StaticPage title="Privacy Policy">
      <p className="text-sm !text-stone-600">Effective date: September 1, 2025</p>

      <p>
        Thoughtfully lets you save links, photos, files and short musings now and send them later,
        as one e-mail, to the people you choose. To do that we have to keep what you save until it
        is sent and know who it is for. This page explains, in plain language, what we keep, why,
        and what you can do about it.
      </p>
      <p>
        The short version: we keep only what the service needs, we never sell it, and there is no
        advertising and no tracking.
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
          <strong>What you save:</strong> the links, titles, musings, photos and files you add, and
          your folders' names, schedules and sign-offs.
        </li>
        <li>
          <strong>Your recipients:</strong> the names and e-mail addresses you enter for each
          folder, and whether a recipient has unsubscribed (with the reason, if they chose to give
          one).
        </li>
        <li>
          <strong>Delivery records:</strong> when each e-mail was sent, to which address, how many
          items it held, how large it was, and whether delivery failed or bounced.
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
        address to one of their folders. We use your name and address only to send you that person's
        e-mails, and a reply goes to them, not to us.
      </p>
      <p>
        Every e-mail has its own unsubscribe link. You can unsubscribe with one click from your mail
        app, or open the link to choose between that folder and everything from Thoughtfully. After
        that we send you nothing more. A sender may ask for you to be re-subscribed, but that only
        sends you a single e-mail with a link: you are re-subscribed only if you follow it yourself.
      </p>

      <h2>Where your data lives</h2>
      <p>
        Thoughtfully runs on a single server hosted by Fly.io. Your account, folders and delivery
        records are kept in a database on that server, and uploaded files are stored on its disk
        under random names, never your file's name. Photos have their EXIF metadata, including GPS
        location, removed before they are sent. Your files are served only to you, when you are
        signed in.
      </p>
      <p>
        When a folder is sent, its items leave the folder and their files are deleted from the
        server. The database is backed up daily and each backup is kept for 7 days, so something you
        delete may remain in a backup for up to a week before it is gone for good.
      </p>

      <h2>Cookies</h2>
      <p>
        We use a single cookie: a session cookie that keeps you signed in. It is HttpOnly (scripts
        on the page cannot read it), it points to a session stored on our server, and it lasts 30
        days from your last visit. Signing out ends the session. There are no analytics, advertising
        or third-party cookies, and no tracking pixels in our e-mails.
      </p>

      <h2>Sharing</h2>
      <p>We share data only with the services that make Thoughtfully work:</p>
      <ul>
        <li>
          <strong>Stripe</strong> handles payments. You enter your card details on Stripe's pages;
          they never reach us. We receive only a customer reference and your subscription status.
        </li>
        <li>
          <strong>Our e-mail provider</strong> delivers the messages, so it handles recipients'
          addresses and the content of each e-mail.
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
          Delete your account in Profile Settings under Delete Account. This removes, at once, every
          folder, item, uploaded file and session, your profile and your delivery schedules, and
          ends your subscription. Only the 7-day backups remain, until they expire.
        </li>
        <li>For a copy of your data or any other request, write to us at the address below.</li>
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
