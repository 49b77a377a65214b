import type { MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";

/**
 * The baseline of `npm run bench:dashboard` (bench/dashboard.ts): a page with
 * no database and no session work of its own, rendering plain HTML of about
 * the size of a dashboard with 5 folders and 50 items (about 175 KB, most of
 * it markup rather than loader data, as on the dashboard; the benchmark prints
 * both sizes). What the dashboard costs beyond it is our loaders and
 * components, not Remix, React or the HTTP stack. Linked from nowhere.
 */
export const meta: MetaFunction = () => [
  { title: "Benchmark baseline · Thoughtfully" },
  { name: "robots", content: "noindex" },
];

const ROWS = Array.from({ length: 50 }, (_, index) => ({
  id: index + 1,
  title: `Saved item number ${index + 1}: a link worth reading later`,
  detail:
    index % 2 === 0
      ? "https://example.com/articles/a-long-enough-path · https://example.com/another/path"
      : "A short musing about the week, long enough to be a realistic line of text.",
}));

/** Each row's body text: rendered in the HTML, not sent in the loader data. */
const ROW_TEXT =
  "Saved for the next delivery: a paragraph of plain text standing in for the links, comments, questions and buttons a saved item shows on the dashboard. ".repeat(
    20,
  );

export function loader() {
  // Only the benchmark turns this on; everywhere else the page does not exist.
  if (process.env.BENCH_ROUTES !== "on") throw new Response("Not Found", { status: 404 });
  return { heading: "Benchmark baseline", rows: ROWS };
}

export default function BenchMinimal() {
  const { heading, rows } = useLoaderData<typeof loader>();
  return (
    <main className="mx-auto max-w-3xl px-4 py-6">
      <h1 className="text-xl font-semibold">{heading}</h1>
      <ul className="mt-4 space-y-2">
        {rows.map((row) => (
          <li key={row.id} className="rounded border border-stone-200 bg-white p-3 text-sm">
            <p className="font-semibold text-stone-900">{row.title}</p>
            <p className="text-stone-600">{row.detail}</p>
            <p className="text-stone-700">{ROW_TEXT}</p>
          </li>
        ))}
      </ul>
    </main>
  );
}
