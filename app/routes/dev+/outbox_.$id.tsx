import { json, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { StaticPage } from "~/components/layout/public-layout";
import { requireOutboxReader } from "~/modules/auth/roles.server";
import { formatUtc } from "~/platform/dates";
import { invariantResponse } from "~/platform/errors.server";
import { readOutboxMessage } from "~/platform/mailer.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.message.subject || "E-mail"} · Outbox · Thoughtfully` },
  { name: "robots", content: "noindex" },
];

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireOutboxReader(request);
  const message = await readOutboxMessage(params.id ?? "");
  invariantResponse(message);
  const { raw: _raw, ...shown } = message;
  return json({ message: { ...shown, date: message.date.toISOString() } });
}

export default function OutboxMessage() {
  const { message } = useLoaderData<typeof loader>();
  const headers = [
    ["From", message.from],
    ["To", message.to],
    ...(message.cc ? [["Cc", message.cc]] : []),
    ["Subject", message.subject],
  ];
  return (
    <StaticPage title={message.subject || "(no subject)"}>
      <p>
        <Link to="/dev/outbox">← All messages</Link>
      </p>

      <dl className="mt-6 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 rounded-2xl border border-stone-200 bg-white p-5 text-sm shadow-xs">
        {headers.map(([name, value]) => (
          <div key={name} className="contents">
            <dt className="font-semibold text-stone-600">{name}</dt>
            <dd className="break-all text-stone-800">{value}</dd>
          </div>
        ))}
        <dt className="font-semibold text-stone-600">Date</dt>
        <dd className="text-stone-800">
          <time dateTime={message.date}>{formatUtc(message.date)}</time>
        </dd>
      </dl>

      <h2>HTML</h2>
      {message.html ? (
        // sandbox="" : no scripts, no forms, no navigation, an opaque origin.
        <iframe
          sandbox=""
          srcDoc={message.html}
          title="E-mail preview"
          className="mt-4 h-[640px] w-full rounded-2xl border border-stone-200 bg-white"
        />
      ) : (
        <p>This e-mail has no HTML part.</p>
      )}

      <h2>Plain text</h2>
      {message.text ? (
        <pre className="mt-4 overflow-x-auto whitespace-pre-wrap rounded-2xl border border-stone-200 bg-white p-5 text-sm text-stone-800">
          {message.text}
        </pre>
      ) : (
        <p>This e-mail has no plain-text part.</p>
      )}

      <p>
        <Link to="/dev/outbox">← All messages</Link>
      </p>
    </StaticPage>
  );
}
