import { json, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import type { ReactNode } from "react";
import { StaticPage } from "~/components/layout/public-layout";
import { getUser } from "~/modules/auth/session.server";
import { LIMITS } from "~/modules/plans/limits";
import { PRIORITY_SUPPORT_PROMISE, prioritySupportAddress } from "~/modules/plans/priority-support";
import { isPremium } from "~/modules/plans/quota.server";
import { env } from "~/platform/env.server";

export const meta: MetaFunction = () => [
  { title: "Support · Thoughtfully" },
  {
    name: "description",
    content: "Get help with Thoughtfully: write to us, or find quick answers to common questions.",
  },
];

/** Signed-in senders also see priority support: its address with Premium, an upgrade prompt without. */
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await getUser(request);
  return json({
    supportEmail: env.SUPPORT_EMAIL,
    priority: user
      ? isPremium(user)
        ? { premium: true as const, address: prioritySupportAddress(env.SUPPORT_EMAIL) }
        : { premium: false as const }
      : null,
  });
}

const MB = 1024 * 1024;
const WORDS = [
  "zero",
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
];

/** "10 MB" from bytes; limits are whole (or half) megabytes. */
function formatMb(bytes: number) {
  return `${Number((bytes / MB).toFixed(1))} MB`;
}

/** Small counts read better as words ("up to five"). */
function spell(count: number) {
  return WORDS[count] ?? count.toLocaleString("en-US");
}

function listOf(values: readonly string[]) {
  if (values.length < 2) return values.join("");
  return `${values.slice(0, -1).join(", ")} or ${values[values.length - 1]}`;
}

const { folder, item } = LIMITS;

const faqs: { question: string; answer: ReactNode }[] = [
  {
    question: "When are e-mails sent?",
    answer: (
      <>
        At 00:01 in your time zone on the scheduled day: the day of the week for a weekly folder, or
        the day of the month for a monthly one. If that day does not exist in a shorter month, the
        e-mail goes out on the month's last day. A folder with nothing in it is simply skipped.
      </>
    ),
  },
  {
    question: "How many recipients can a folder have?",
    answer: (
      <>
        Up to {spell(folder.maxRecipients)} per folder. Each recipient gets their own copy, with
        their own unsubscribe link.
      </>
    ),
  },
  {
    question: "What can I save?",
    answer: (
      <>
        Links, musings (short notes of up to {item.textMaxLength.toLocaleString("en-US")}{" "}
        characters), photos (up to {spell(item.maxPhotos)} per item) and PDF or Word files (up to{" "}
        {spell(item.maxFiles)} per item). Each file can be up to {formatMb(item.maxFileBytes)}, and
        a folder can hold up to {formatMb(folder.maxSizeBytes)} in all, or{" "}
        {formatMb(folder.icloudMaxSizeBytes)} if a recipient uses an iCloud address (
        {listOf(folder.icloudDomains)}), so that every e-mail arrives.
      </>
    ),
  },
  {
    question: "How does a recipient unsubscribe?",
    answer: (
      <>
        Every e-mail has its own unsubscribe link, and most mail apps also show a one-click
        unsubscribe button. Once unsubscribed, a recipient gets nothing more, and only they can
        re-subscribe, by following a link sent to them.
      </>
    ),
  },
  {
    question: "How do recipients answer?",
    answer: (
      <>
        Every item in your e-mail has a link to send you a heart or a short note, with no account.
        You see them in each folder's Sent, beside what you sent, with a count of new ones on your
        dashboard, and by e-mail once a day unless you change that in the folder's settings. Only
        you see them, never your other recipients.
      </>
    ),
  },
  {
    question: "How do I delete my account?",
    answer: (
      <>
        Go to <Link to="/profile">Profile Settings</Link> and choose Delete Account. Every folder,
        item, file and session is removed at once.
      </>
    ),
  },
];

export default function Support() {
  const { supportEmail, priority } = useLoaderData<typeof loader>();
  return (
    <StaticPage title="Support">
      <p>
        A question, something not working as it should, or an idea for making Thoughtfully better?
        Write to us. A real person reads every message.
      </p>

      <div className="mt-6 rounded-2xl border border-brand-200 bg-white p-5 shadow-xs sm:p-6">
        <p className="mt-0! text-sm font-semibold uppercase tracking-wide text-brand-700!">
          E-mail us
        </p>
        <p className="mt-2! break-all font-serif text-xl sm:text-2xl">
          <a href={`mailto:${supportEmail}`}>{supportEmail}</a>
        </p>
        <p className="text-sm">
          Tell us the e-mail address of your account and, if it is about a folder, its name. Please
          never send us your password.
        </p>
      </div>

      {priority ? (
        <section
          aria-labelledby="priority-support-heading"
          className="mt-6 rounded-2xl border border-amber-200 bg-amber-50 p-5 sm:p-6"
        >
          <h2 id="priority-support-heading" className="mt-0! text-lg">
            Priority support <span className="text-sm font-normal">(Premium)</span>
          </h2>
          {priority.premium ? (
            <p className="text-sm">
              As a Premium member, write to{" "}
              <a href={`mailto:${priority.address}`} className="break-all">
                {priority.address}
              </a>
              : your messages are {PRIORITY_SUPPORT_PROMISE}.
            </p>
          ) : (
            <p className="text-sm">
              Premium members have their own support address, {PRIORITY_SUPPORT_PROMISE}.{" "}
              <Link to="/upgrade">Upgrade to Premium</Link>
            </p>
          )}
        </section>
      ) : null}

      <h2>Frequently asked questions</h2>
      <div className="mt-4 divide-y divide-stone-200 border-y border-stone-200">
        {faqs.map((faq) => (
          <section key={faq.question} className="py-5">
            <h3 className="font-serif text-lg font-semibold text-stone-900">{faq.question}</h3>
            <p className="mt-2!">{faq.answer}</p>
          </section>
        ))}
      </div>

      <p>
        Curious about what we keep and why? Read our{" "}
        <Link to="/privacy-policy">Privacy Policy</Link>. Want to save pages straight from your
        browser? Try the <Link to="/chrome-extension">Chrome extension</Link>.
      </p>
    </StaticPage>
  );
}
