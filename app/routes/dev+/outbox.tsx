import { json, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { StaticPage } from "~/components/layout/public-layout";
import { DataTable } from "~/components/ui/data-table";
import { requireOutboxReader } from "~/modules/auth/roles.server";
import { formatUtc } from "~/platform/dates";
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
      <DataTable
        caption="Messages"
        captionHidden
        className="mt-4"
        empty={<p>No e-mails yet.</p>}
        rows={messages}
        rowKey={(message) => message.id}
        columns={[
          {
            id: "subject",
            header: "Subject",
            cell: (message) => (
              <Link
                to={`/dev/outbox/${encodeURIComponent(message.id)}`}
                className="font-medium text-brand-700 underline underline-offset-2 hover:text-brand-900"
              >
                {message.subject || "(no subject)"}
              </Link>
            ),
          },
          {
            id: "to",
            header: "To",
            cellClassName: "break-all text-stone-700",
            cell: (message) => message.to,
          },
          {
            id: "date",
            header: "Date",
            cellClassName: "whitespace-nowrap text-stone-700",
            cell: (message) => <time dateTime={message.date}>{formatUtc(message.date)}</time>,
          },
        ]}
      />
    </StaticPage>
  );
}
