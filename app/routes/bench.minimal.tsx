import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";

/**
 * The baseline of `npm run bench:dashboard` (bench/dashboard.ts): a page with
 * no database and no session work of its own, rendering plain HTML of the
 * dashboard's size, most of it markup rather than loader data, as on the
 * dashboard. `?bytes=N` pads its rows' text so the page comes out about N
 * bytes long; the benchmark asks for the size of the dashboard it measures and
 * prints both sizes. What the dashboard costs beyond it is our loaders and
 * components, not Remix, React or the HTTP stack. Only a bench build
 * (`BENCH=1 remix build`, remix.config.js) has this route.
 */
export const meta: MetaFunction = () => [
  { title: "Benchmark baseline · Thoughtfully" },
  { name: "robots", content: "noindex" },
];

const ROW_COUNT = 50;

const ROWS = Array.from({ length: ROW_COUNT }, (_, index) => ({
  id: index + 1,
  title: `Saved item number ${index + 1}: a link worth reading later`,
  detail:
    index % 2 === 0
      ? "https://example.com/articles/a-long-enough-path · https://example.com/another/path"
      : "A short musing about the week, long enough to be a realistic line of text.",
}));

const ROW_TEXT =
  "Saved for the next delivery: a paragraph of plain text standing in for the links, comments, questions and buttons a saved item shows on the dashboard. ";

/** The page without row text is about this long; the rows' text makes up the rest of `bytes`. */
const PAGE_WITHOUT_TEXT_BYTES = 18_000;
const DEFAULT_BYTES = 100_000;
const MAX_BYTES = 2_000_000;

export function loader({ request }: LoaderFunctionArgs) {
  const requested = Number(new URL(request.url).searchParams.get("bytes") ?? DEFAULT_BYTES);
  const bytes = Number.isSafeInteger(requested)
    ? Math.min(Math.max(requested, 0), MAX_BYTES)
    : DEFAULT_BYTES;
  const rowTextLength = Math.max(0, Math.floor((bytes - PAGE_WITHOUT_TEXT_BYTES) / ROW_COUNT));
  return { heading: "Benchmark baseline", rows: ROWS, rowTextLength };
}

export default function BenchMinimal() {
  const { heading, rows, rowTextLength } = useLoaderData<typeof loader>();
  // The row text is rendered into the HTML, not sent in the loader data (only its length is).
  const rowText = ROW_TEXT.repeat(Math.ceil(rowTextLength / ROW_TEXT.length)).slice(
    0,
    rowTextLength,
  );
  return (
    <main className="mx-auto max-w-3xl px-4 py-6">
      <h1 className="text-xl font-semibold">{heading}</h1>
      <ul className="mt-4 space-y-2">
        {rows.map((row) => (
          <li key={row.id} className="rounded-sm border border-stone-200 bg-white p-3 text-sm">
            <p className="font-semibold text-stone-900">{row.title}</p>
            <p className="text-stone-600">{row.detail}</p>
            <p className="text-stone-700">{rowText}</p>
          </li>
        ))}
      </ul>
    </main>
  );
}
