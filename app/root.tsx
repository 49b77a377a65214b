import {
  data,
  type LinksFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import {
  isRouteErrorResponse,
  Links,
  LiveReload,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLoaderData,
  useRouteError,
} from "@remix-run/react";
import type { ReactNode } from "react";
import { CsrfFailurePage } from "~/components/errors/csrf-failure";
import { DatabaseBusyPage } from "~/components/errors/database-busy";
import { NotFound } from "~/components/errors/not-found";
import { NavigationDelegation } from "~/components/layout/delegated-navigation";
import { PublicLayout } from "~/components/layout/public-layout";
import { Toaster } from "~/components/layout/toaster";
import { useNoDraftsWhenSignedOut } from "~/components/offline/draft-on-device";
import { PendingSavesSender } from "~/components/offline/pending-saves";
import { issueCsrfToken } from "~/modules/auth/csrf.server";
import { takeKeptDraft } from "~/modules/auth/kept-draft.server";
import { isAdmin } from "~/modules/auth/roles.server";
import { getCurrentSession } from "~/modules/auth/session.server";
import { isCsrfFailure } from "~/platform/csrf";
import { isDatabaseBusyFailure } from "~/platform/database-busy";
import { useNonce } from "~/platform/nonce-provider";
import { getToast, type Toast } from "~/platform/toast.server";
import tailwindHref from "~/tailwind.css";
import { useTextTypedBeforeHydration } from "~/utils/typed-before-hydration";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: tailwindHref },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
  { rel: "manifest", href: "/manifest.webmanifest" },
];

export const meta: MetaFunction = () => [
  { title: "Thoughtfully · Save now to send later" },
  {
    name: "description",
    content:
      "Share Thoughtfully. Save links, photos, files and notes into folders and send them to family and friends as one calm e-mail on a schedule.",
  },
];

const keptDraftToast = (): Toast => ({
  id: crypto.randomUUID(),
  title: "What you typed is back",
  description: "You were signed out before it was saved. Check it, then save it.",
  variant: "default",
});

export async function loader({ request }: LoaderFunctionArgs) {
  const session = await getCurrentSession(request);
  const csrf = await issueCsrfToken(request, session?.sessionId ?? null);
  const { toast, setCookie: toastCookie } = await getToast(request);
  // A form sent after its session ended gets back what was typed, once signed in again.
  const { keptDraft, setCookie: draftCookie } = session
    ? takeKeptDraft(request)
    : { keptDraft: null, setCookie: null };
  const headers = new Headers();
  for (const cookie of [session?.renewedCookie, csrf.setCookie, toastCookie, draftCookie]) {
    if (cookie) headers.append("Set-Cookie", cookie);
  }
  const user = session?.user;
  return data(
    {
      user: user
        ? {
            id: user.id,
            email: user.email,
            firstName: user.firstName,
            lastName: user.lastName,
            emailVerified: user.emailVerified,
            isAdmin: isAdmin(user.id),
          }
        : null,
      csrfToken: csrf.token,
      toast: keptDraft ? (toast ?? keptDraftToast()) : toast,
      keptDraft,
    },
    { headers },
  );
}

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
        {/* Every layout's <main> is #main (app-shell.tsx, public-layout.tsx). */}
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:fixed focus:left-2 focus:top-2 focus:z-50 focus:rounded-lg focus:bg-white focus:px-4 focus:py-3 focus:font-medium focus:text-brand-900 focus:shadow-lg"
        >
          Skip to content
        </a>
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
        <LiveReload nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  const { toast, user } = useLoaderData<typeof loader>();
  useTextTypedBeforeHydration();
  useNoDraftsWhenSignedOut(user !== null);
  return (
    <Document>
      <Outlet />
      <Toaster toast={toast} />
      <NavigationDelegation />
      {user ? <PendingSavesSender /> : null}
    </Document>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  const csrfFailure = isRouteErrorResponse(error) && isCsrfFailure(error.data) ? error.data : null;
  const busy = isRouteErrorResponse(error) && isDatabaseBusyFailure(error.data) ? error.data : null;
  return (
    <Document>
      <PublicLayout>
        {csrfFailure ? (
          <CsrfFailurePage failure={csrfFailure} />
        ) : busy ? (
          <DatabaseBusyPage failure={busy} />
        ) : notFound ? (
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
