import { useLocation, useNavigation, useRouteLoaderData } from "@remix-run/react";
import type { ReactNode } from "react";
import { DelegatedForm, DelegatedLink } from "~/components/layout/delegated-navigation";
import { useDetailsMenu } from "~/components/layout/details-menu";
import { Logo } from "~/components/layout/logo";
import { SiteFooter } from "~/components/layout/public-layout";
import { type View, viewOf } from "~/components/layout/view-tabs";
import { CsrfInput } from "~/components/ui/forms";
import type { loader as rootLoader } from "~/root";

type ShellUser = { email: string; firstName: string | null; lastName: string | null };

/** Full name, else e-mail, else "User" (docs/product-rules.md, Pages and messages). */
export function displayName(user: ShellUser | null | undefined) {
  const fullName = [user?.firstName, user?.lastName].filter(Boolean).join(" ").trim();
  return fullName || user?.email || "User";
}

function SignOutButton() {
  const navigation = useNavigation();
  const pending = navigation.state !== "idle" && navigation.formAction === "/logout";
  return (
    <DelegatedForm action="/logout">
      <CsrfInput />
      <button
        type="submit"
        className="flex min-h-11 w-full items-center px-4 text-left text-sm text-stone-800 hover:bg-stone-100"
      >
        {pending ? "Signing Out..." : "Sign out"}
      </button>
    </DelegatedForm>
  );
}

/**
 * The user menu is a <details> element: it opens and closes without
 * JavaScript, and every entry is a real link or form. With JavaScript,
 * Escape and a tap outside close it too.
 */
function UserMenu({ user, isAdmin }: { user: ShellUser; isAdmin: boolean }) {
  const menu = useDetailsMenu();
  const itemClass = "flex min-h-11 items-center px-4 text-sm text-stone-800 hover:bg-stone-100";
  return (
    // ml-auto: should the header wrap, the menu still sits at the right edge, where its
    // right-anchored panel opens inside the screen.
    <details ref={menu} className="group relative ml-auto">
      <summary className="flex min-h-11 cursor-pointer list-none items-center gap-2 rounded-full border border-stone-300 bg-white px-3 text-sm font-medium text-stone-800 hover:bg-stone-100 [&::-webkit-details-marker]:hidden">
        <span className="max-w-[5rem] truncate min-[360px]:max-w-[9rem] sm:max-w-[16rem]">
          {displayName(user)}
        </span>
        <svg aria-hidden="true" viewBox="0 0 20 20" className="h-4 w-4 text-stone-500">
          <path fill="currentColor" d="M5.5 7.5 10 12l4.5-4.5" />
        </svg>
      </summary>
      <nav
        aria-label="Account"
        className="absolute right-0 z-40 mt-2 w-56 max-w-[calc(100vw-2rem)] overflow-hidden rounded-xl border border-stone-200 bg-white py-1 shadow-lg"
      >
        <DelegatedLink to="/profile" className={itemClass}>
          Profile Settings
        </DelegatedLink>
        {isAdmin ? (
          <DelegatedLink to="/admin/dashboard" className={itemClass}>
            Admin Dashboard
          </DelegatedLink>
        ) : null}
        <DelegatedLink to="/privacy-policy" className={itemClass}>
          Privacy Policy
        </DelegatedLink>
        <DelegatedLink to="/chrome-extension" className={itemClass}>
          Chrome Extension
        </DelegatedLink>
        <DelegatedLink to="/support" className={itemClass}>
          Support
        </DelegatedLink>
        <div className="border-t border-stone-200">
          <SignOutButton />
        </div>
      </nav>
    </details>
  );
}

/** A view's tab, marked as the current page on every page of its view. */
function ViewTab({ to, view, children }: { to: string; view: View; children: ReactNode }) {
  const isActive = viewOf(useLocation().pathname) === view;
  return (
    <DelegatedLink
      to={to}
      aria-current={isActive ? "page" : undefined}
      className={`flex min-h-11 items-center rounded-full px-5 text-sm font-semibold ${
        isActive ? "bg-brand-700 text-white" : "text-stone-700 hover:bg-stone-200"
      }`}
    >
      {children}
    </DelegatedLink>
  );
}

export function AppShell({ children }: { children: ReactNode }) {
  const root = useRouteLoaderData<typeof rootLoader>("root");
  const user = root?.user;
  return (
    <div className="flex min-h-screen flex-col">
      <header className="border-b border-stone-200/70 bg-cream/95">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-3 px-4 py-3 sm:px-6">
          <DelegatedLink
            to="/"
            className="flex min-h-11 items-center text-brand-900"
            aria-label="Thoughtfully home"
          >
            <Logo />
          </DelegatedLink>
          {/* On a phone the views take a row of their own below: the account menu stays at the
              right edge, where its right-anchored panel opens inside the screen. */}
          <nav
            aria-label="Views"
            className="order-last flex w-full items-center justify-center gap-2 rounded-full bg-stone-100 p-1 sm:order-0 sm:w-auto"
          >
            <ViewTab to="/" view="share">
              Share
            </ViewTab>
            <ViewTab to="/save" view="save">
              Save
            </ViewTab>
          </nav>
          {user ? <UserMenu user={user} isAdmin={user.isAdmin} /> : null}
        </div>
      </header>
      {user && !user.emailVerified ? (
        <div className="border-b border-amber-200 bg-amber-50">
          <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-2 px-4 py-2 text-sm text-amber-900 sm:px-6">
            <p>
              Please confirm your email address. Until you do, you can save links and musings, but
              not upload photos or files, send, send a test or ask anyone to re-subscribe.
            </p>
            <DelegatedForm action="/resend-verification">
              <CsrfInput />
              <input type="hidden" name="email" value={user.email} />
              <button type="submit" className="font-semibold underline underline-offset-2">
                Resend the link
              </button>
            </DelegatedForm>
          </div>
        </div>
      ) : null}
      <main id="main" className="flex-1">
        {children}
      </main>
      <SiteFooter />
    </div>
  );
}
