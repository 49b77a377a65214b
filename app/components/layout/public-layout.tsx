import { Link, useRouteLoaderData } from "@remix-run/react";
import type { ReactNode } from "react";
import { Logo } from "~/components/layout/logo";
import type { loader as rootLoader } from "~/root";

/** Quiet text links, still 44 px tall: on a recipient's page they stay below its own action. */
const QUIET_LINK =
  "inline-flex min-h-11 min-w-11 items-center justify-center text-sm font-medium text-stone-700 underline underline-offset-2 hover:text-stone-900";

/**
 * The header of the pages anyone may see (the landing page, sign-in, the 404 and error pages,
 * "Confirm it's you"): a signed-in sender is offered their folders, never "Sign Up / Log In".
 * On a recipient's page (`forRecipient`: unsubscribe, welcome, answer…), which exists for
 * something else, "Sign up" and "Log in" are quiet links, never louder than the page's own
 * button (docs/decisions/0209-recipient-pages-thumb-sized.md).
 */
export function PublicHeader({ forRecipient = false }: { forRecipient?: boolean }) {
  // Absent when the root loader itself failed: then nobody is known to be signed in.
  const signedIn = Boolean(useRouteLoaderData<typeof rootLoader>("root")?.user);
  return (
    <header className="border-b border-stone-200/70 bg-cream/90">
      <nav
        aria-label="Main"
        className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-3 px-4 py-4 sm:px-6"
      >
        <Link
          to="/"
          className="flex min-h-11 items-center text-brand-900"
          aria-label="Thoughtfully home"
        >
          <Logo />
        </Link>
        {signedIn ? (
          <Link to="/" className="btn-secondary px-3 py-2 sm:px-4">
            My Folders
          </Link>
        ) : forRecipient ? (
          <div className="flex items-center gap-4">
            <Link to="/signup" className={QUIET_LINK}>
              Sign up
            </Link>
            <Link to="/login" className={QUIET_LINK}>
              Log in
            </Link>
          </div>
        ) : (
          <div className="flex items-center gap-2">
            <Link to="/signup" className="btn-primary px-3 py-2 sm:px-4">
              Sign Up
            </Link>
            <Link to="/login" className="btn-secondary px-3 py-2 sm:px-4">
              Log In
            </Link>
          </div>
        )}
      </nav>
    </header>
  );
}

const FOOTER_LINK = "inline-flex min-h-11 items-center hover:text-stone-900 hover:underline";

export function SiteFooter() {
  return (
    <footer className="border-t border-stone-200/70">
      <div className="mx-auto flex max-w-6xl flex-col items-center justify-between gap-3 px-4 py-8 text-sm text-stone-600 sm:flex-row sm:px-6">
        <p>© 2025 Thoughtfully · Produced by a small studio</p>
        <nav aria-label="Footer" className="flex gap-5">
          <Link to="/privacy-policy" className={FOOTER_LINK}>
            Privacy Policy
          </Link>
          <Link to="/support" className={FOOTER_LINK}>
            Support
          </Link>
          <Link to="/chrome-extension" className={FOOTER_LINK}>
            Chrome Extension
          </Link>
        </nav>
      </div>
    </footer>
  );
}

export function PublicLayout({
  children,
  forRecipient = false,
}: {
  children: ReactNode;
  forRecipient?: boolean;
}) {
  return (
    <div className="flex min-h-screen flex-col">
      <PublicHeader forRecipient={forRecipient} />
      <main id="main" className="flex-1">
        {children}
      </main>
      <SiteFooter />
    </div>
  );
}

export function StaticPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <PublicLayout>
      <article className="prose-page mx-auto max-w-3xl px-4 py-12 sm:px-6 sm:py-16">
        <h1 className="font-serif text-3xl font-semibold text-stone-900 sm:text-4xl">{title}</h1>
        {children}
      </article>
    </PublicLayout>
  );
}
