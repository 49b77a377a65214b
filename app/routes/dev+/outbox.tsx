import { json, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { StaticPage } from "~/components/public-layout";
import { requireOutboxReader } from "~/modules/accounts/roles.server";
import { env } from "~/platform/env.server";
import { listOutbox } from "~/platform/mailer.server";

export const meta: MetaFunction = () => [
  { title: "Outbox · Thoughtfully" },
  { name: "robots", content: "noindex" },
];

export async function loader({ request }: LoaderFunctionArgs) {
  await requireOutboxReader(request);
  const messages = (await listOutbox()).map((message) => ({
    ...message,
    date: message.date.toISOString(),
  }));
  return json({ messages, smtp: Boolean(env.SMTP_URL), outboxDir: env.OUTBOX_DIR });
}

/** The same text on the server and in the browser: UTC, not the viewer's zone. */
function formatDate(iso: string) {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

export default function Outbox() {
  const { messages, smtp, outboxDir } = useLoaderData<typeof loader>();
  return (
    <StaticPage title="Outbox">
      <p>
        Every e-mail the app sends without <code>SMTP_URL</code> is written here, as an{" "}
        <code>.eml</code> file in <code className="break-all">{outboxDir}</code>, newest first.
      </p>
      {smtp ? (
        <p>
          <code>SMTP_URL</code> is set, so new e-mails go out by SMTP and do not appear here.
        </p>
      ) : null}

      <h2>Messages</h2>
      {messages.length === 0 ? (
        <p>No e-mails yet.</p>
      ) : (
        <div className="mt-4 overflow-x-auto rounded-2xl border border-stone-200 bg-white shadow-sm">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-stone-200 bg-stone-50 text-stone-600">
              <tr>
                <th scope="col" className="px-4 py-3 font-semibold">
                  Subject
                </th>
                <th scope="col" className="px-4 py-3 font-semibold">
                  To
                </th>
                <th scope="col" className="px-4 py-3 font-semibold">
                  Date
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-stone-200">
              {messages.map((message) => (
                <tr key={message.id} className="align-top">
                  <td className="px-4 py-3">
                    <Link
                      to={`/dev/outbox/${encodeURIComponent(message.id)}`}
                      className="font-medium text-brand-700 underline underline-offset-2 hover:text-brand-900"
                    >
                      {message.subject || "(no subject)"}
                    </Link>
                  </td>
                  <td className="break-all px-4 py-3 text-stone-700">{message.to}</td>
                  <td className="whitespace-nowrap px-4 py-3 text-stone-700">
                    <time dateTime={message.date}>{formatDate(message.date)}</time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </StaticPage>
  );
}
