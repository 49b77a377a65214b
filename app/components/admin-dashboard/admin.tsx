import type { HeadersFunction } from "@remix-run/node";
import {
  Form,
  isRouteErrorResponse,
  Link,
  useLocation,
  useNavigate,
  useNavigation,
  useRevalidator,
  useRouteError,
} from "@remix-run/react";
import { type ReactNode, useEffect, useId, useState } from "react";
import { useHydrated } from "remix-utils/use-hydrated";
import { AppShell } from "~/components/layout/app-shell";
import { DataTable } from "~/components/ui/data-table";
import { CsrfInput } from "~/components/ui/forms";
import type { Level } from "~/modules/admin/admin-display";
import { ACCESS_DENIED_REDIRECT_MS, isAccessDenied } from "~/modules/auth/access-denied";
import { formatUtc } from "~/platform/dates";

/** The admin dashboards poll every 2 minutes while auto-refresh is on (docs/product-rules.md, Admin dashboards). */
export const ADMIN_POLL_MS = 2 * 60 * 1000;

/**
 * Admin pages are never cached, and a refused visitor's 403 keeps its
 * Refresh header (it sends a browser without JavaScript to / after 1.5 s).
 */
export const adminHeaders: HeadersFunction = ({ loaderHeaders, errorHeaders }) => {
  const headers = new Headers({ "Cache-Control": "no-store" });
  const refresh = errorHeaders?.get("Refresh") ?? loaderHeaders.get("Refresh");
  if (refresh) headers.set("Refresh", refresh);
  return headers;
};

const LEVEL_STYLES: Record<Level, string> = {
  normal: "border-stone-200 bg-white",
  success: "border-emerald-300 bg-emerald-50",
  warning: "border-amber-400 bg-amber-50",
  critical: "border-red-400 bg-red-50",
};
const LEVEL_LABELS: Record<Level, string | null> = {
  normal: null,
  success: "Good",
  warning: "Warning",
  critical: "Critical",
};
const LEVEL_TEXT: Record<Level, string> = {
  normal: "text-stone-600",
  success: "text-emerald-800",
  warning: "text-amber-900",
  critical: "text-red-800",
};

/** One figure: a label, its value and, past a threshold, its level in words (not colour alone). */
export function Stat({
  label,
  value,
  hint,
  level = "normal",
}: {
  label: string;
  value: ReactNode;
  hint?: ReactNode;
  level?: Level;
}) {
  const badge = LEVEL_LABELS[level];
  return (
    <div className={`rounded-xl border p-4 shadow-xs ${LEVEL_STYLES[level]}`}>
      <dt className="text-sm text-stone-700">{label}</dt>
      <dd className="mt-1 font-serif text-2xl font-semibold text-stone-900">{value}</dd>
      {badge || hint ? (
        <dd className={`mt-1 text-xs ${LEVEL_TEXT[level]}`}>
          {badge ? <strong className="font-semibold">{badge}</strong> : null}
          {badge && hint ? " · " : null}
          {hint}
        </dd>
      ) : null}
    </div>
  );
}

export function StatGrid({ children }: { children: ReactNode }) {
  return <dl className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3">{children}</dl>;
}

export function Panel({
  title,
  children,
  actions,
}: {
  title: string;
  children: ReactNode;
  actions?: ReactNode;
}) {
  const id = useId();
  return (
    <section
      aria-labelledby={id}
      // min-w-0: in a grid a panel keeps its column's width; wide tables scroll inside it.
      className="min-w-0 rounded-2xl border border-stone-200 bg-white/60 p-5 shadow-xs"
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id={id} className="font-serif text-xl font-semibold text-stone-900">
          {title}
        </h2>
        {actions}
      </div>
      <div className="mt-4">{children}</div>
    </section>
  );
}

/**
 * Last-updated time, Refresh (a form: the page comes back with the
 * "Refreshed" toast of docs/product-rules.md, Admin dashboards, with or without JavaScript) and, with
 * JavaScript, the auto-refresh switch (default on) that revalidates the page
 * every 2 minutes.
 */
export function RefreshControls({ generatedAt }: { generatedAt: string }) {
  const hydrated = useHydrated();
  const revalidator = useRevalidator();
  const location = useLocation();
  const navigation = useNavigation();
  const [autoRefresh, setAutoRefresh] = useState(true);

  useEffect(() => {
    if (!autoRefresh) return;
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") revalidator.revalidate();
    }, ADMIN_POLL_MS);
    return () => clearInterval(timer);
  }, [autoRefresh, revalidator]);

  return (
    <div className="flex flex-wrap items-center gap-3 text-sm text-stone-700">
      <p>
        Last updated: <time dateTime={generatedAt}>{formatUtc(generatedAt)}</time>
      </p>
      {hydrated ? (
        <button
          type="button"
          role="switch"
          aria-checked={autoRefresh}
          onClick={() => setAutoRefresh((on) => !on)}
          className="inline-flex items-center gap-2 rounded-full border border-stone-300 bg-white px-3 py-1.5 font-medium text-stone-800 hover:bg-stone-100"
        >
          <span
            aria-hidden="true"
            className={`h-2.5 w-2.5 rounded-full ${autoRefresh ? "bg-emerald-600" : "bg-stone-400"}`}
          />
          Auto-refresh {autoRefresh ? "on" : "off"}
        </button>
      ) : null}
      <Form method="post" action={`${location.pathname}${location.search}`}>
        <CsrfInput />
        <input type="hidden" name="intent" value="refresh" />
        <button type="submit" className="btn-secondary py-1.5">
          {revalidator.state === "loading" || navigation.formData?.get("intent") === "refresh"
            ? "Refreshing..."
            : "Refresh"}
        </button>
      </Form>
    </div>
  );
}

export type ChartPoint = { date: string; value: number | null };

/**
 * A bar chart drawn on the server as SVG, with a title and a description for
 * screen readers and the numbers in a table beneath (closed by default).
 */
export function BarChart({
  title,
  points,
  format = (value) => String(value),
}: {
  title: string;
  points: ChartPoint[];
  format?: (value: number) => string;
}) {
  const id = useId();
  const width = 600;
  const height = 180;
  const top = 16;
  const bottom = 24;
  const values = points.map((point) => point.value ?? 0);
  const max = Math.max(1, ...values);
  const known = points.filter((point) => point.value !== null);
  const slot = width / Math.max(points.length, 1);
  const peak = known.reduce<ChartPoint | null>(
    (best, point) => (best === null || (point.value ?? 0) > (best.value ?? 0) ? point : best),
    null,
  );
  const first = points[0]?.date ?? "";
  const last = points.at(-1)?.date ?? "";
  const description =
    known.length === 0
      ? `No data yet for ${first} to ${last}.`
      : `Daily values from ${first} to ${last}; ${known.length} of ${points.length} days recorded. Highest ${format(peak?.value ?? 0)} on ${peak?.date}; latest ${format(known.at(-1)?.value ?? 0)} on ${known.at(-1)?.date}.`;
  return (
    <figure className="rounded-xl border border-stone-200 bg-white p-4">
      <figcaption className="font-semibold text-stone-900">{title}</figcaption>
      <svg
        role="img"
        aria-labelledby={`${id}-title ${id}-desc`}
        viewBox={`0 0 ${width} ${height}`}
        className="mt-2 h-auto w-full"
      >
        <title id={`${id}-title`}>{title}</title>
        <desc id={`${id}-desc`}>{description}</desc>
        <line
          x1="0"
          x2={width}
          y1={height - bottom}
          y2={height - bottom}
          className="stroke-stone-300"
        />
        {points.map((point, index) =>
          point.value === null ? null : (
            <rect
              key={point.date}
              x={index * slot + slot * 0.15}
              width={slot * 0.7}
              y={height - bottom - ((height - bottom - top) * point.value) / max}
              height={((height - bottom - top) * point.value) / max}
              className="fill-brand-700"
            >
              <title>{`${point.date}: ${format(point.value)}`}</title>
            </rect>
          ),
        )}
        <text x="0" y="12" className="fill-stone-600 text-[11px]">
          {format(max)}
        </text>
        <text x="0" y={height - 6} className="fill-stone-600 text-[11px]">
          {first}
        </text>
        <text x={width} y={height - 6} textAnchor="end" className="fill-stone-600 text-[11px]">
          {last}
        </text>
      </svg>
      <details className="mt-2 text-sm">
        <summary className="cursor-pointer text-stone-700">{title}: data table</summary>
        <DataTable
          caption={`${title} by day`}
          captionHidden
          className="mt-2"
          rows={points}
          rowKey={(point) => point.date}
          columns={[
            { id: "date", header: "Date", rowHeader: true, cell: (point) => point.date },
            {
              id: "value",
              header: "Value",
              align: "end",
              cell: (point) => (point.value === null ? "—" : format(point.value)),
            },
          ]}
        />
      </details>
    </figure>
  );
}

export function AdminPage({
  title,
  generatedAt,
  nav,
  children,
}: {
  title: string;
  generatedAt: string;
  nav?: ReactNode;
  children: ReactNode;
}) {
  return (
    <AppShell>
      <div className="mx-auto max-w-6xl space-y-6 px-4 py-8 sm:px-6">
        <div className="flex flex-wrap items-end justify-between gap-4">
          <div>
            <h1 className="font-serif text-3xl font-semibold text-stone-900">{title}</h1>
            {nav}
          </div>
          <RefreshControls generatedAt={generatedAt} />
        </div>
        {children}
      </div>
    </AppShell>
  );
}

/**
 * The error boundary of the admin routes: the "Access Denied" panel (and, with
 * JavaScript, the move to / after 1.5 s; without it the Refresh header does it),
 * or, when the figures could not be read, the `failure` message (docs/product-rules.md, Admin dashboards) with a
 * way to try again. Other answers (a 404, a refused form) go on to the root.
 */
export function AdminErrorBoundary({ what, failure }: { what: string; failure: string }) {
  const error = useRouteError();
  const navigate = useNavigate();
  const location = useLocation();
  const denied = isRouteErrorResponse(error) && isAccessDenied(error.data);
  useEffect(() => {
    if (!denied) return;
    const timer = setTimeout(() => navigate("/"), ACCESS_DENIED_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [denied, navigate]);
  if (denied) {
    return (
      <AppShell>
        <section className="mx-auto max-w-xl px-4 py-20 text-center">
          <div role="alert" className="rounded-2xl border border-red-200 bg-white p-8 shadow-xs">
            <h1 className="font-serif text-3xl font-semibold text-stone-900">Access Denied</h1>
            <p className="mt-4 text-stone-700">
              Admin access required to view {what}. Taking you to the home page...
            </p>
            <Link to="/" className="btn-primary mt-6">
              Go to the home page
            </Link>
          </div>
        </section>
      </AppShell>
    );
  }
  if (isRouteErrorResponse(error)) throw error;
  return (
    <AppShell>
      <section className="mx-auto max-w-xl px-4 py-20 text-center">
        <div role="alert" className="rounded-2xl border border-red-200 bg-white p-8 shadow-xs">
          <h1 className="font-serif text-3xl font-semibold text-stone-900">{failure}</h1>
          <p className="mt-4 text-stone-700">
            The figures could not be read just now; nothing has changed. Please try again in a
            moment.
          </p>
          <a href={`${location.pathname}${location.search}`} className="btn-primary mt-6">
            Try again
          </a>
        </div>
      </section>
    </AppShell>
  );
}
