import type { LinksFunction, MetaFunction } from "@remix-run/node";
import {
  isRouteErrorResponse,
  Links,
  LiveReload,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useRouteError,
} from "@remix-run/react";
import type { ReactNode } from "react";
import { NotFound } from "~/components/not-found";
import { PublicLayout } from "~/components/public-layout";
import tailwindHref from "~/tailwind.css";
import { useNonce } from "~/utils/nonce-provider";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: tailwindHref },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

export const meta: MetaFunction = () => [
  { title: "Thoughtfully · Save now to send later" },
  {
    name: "description",
    content:
      "Share Thoughtfully. Save links, photos, files and notes into folders and send them to family and friends as one calm e-mail on a schedule.",
  },
];

function Document({ children }: { children: ReactNode }) {
  const nonce = useNonce();
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#30503b" />
        <Meta />
        <Links />
      </head>
      <body className="min-h-screen">
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
        <LiveReload nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  return (
    <Document>
      <Outlet />
    </Document>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  return (
    <Document>
      <PublicLayout>
        {notFound ? (
          <NotFound />
        ) : (
          <section className="mx-auto max-w-xl px-4 py-20 text-center">
            <h1 className="font-serif text-3xl font-semibold text-stone-900">
              Something went wrong
            </h1>
            <p className="mt-4 text-stone-700">
              We're sorry: this page could not be shown. Nothing you saved is lost. Please try again
              in a moment.
            </p>
            <a href="/" className="btn-primary mt-8">
              Back to the home page
            </a>
          </section>
        )}
      </PublicLayout>
    </Document>
  );
}
