import type { ReactNode } from "react";
import { PublicLayout } from "~/components/layout/public-layout";

/** The look of inline links on the account pages. */
export const authLinkClass =
  "font-medium text-brand-700 underline underline-offset-2 hover:text-brand-900";

/**
 * The account pages (log in, sign up, verify, reset…): one centered card on
 * the cream background, with the page's only h1, an optional lead paragraph
 * and an optional line beneath the card (e.g. "Don't have an account?").
 * `forRecipient` for the pages a recipient opens from an e-mail: their header is quiet.
 */
export function AuthCard({
  title,
  description,
  children,
  footer,
  forRecipient = false,
}: {
  title: string;
  description?: ReactNode;
  children?: ReactNode;
  footer?: ReactNode;
  forRecipient?: boolean;
}) {
  return (
    <PublicLayout forRecipient={forRecipient}>
      <div className="mx-auto w-full max-w-md px-4 py-10 sm:px-6 sm:py-16">
        <div className="rounded-2xl border border-stone-200 bg-white p-5 shadow-xs sm:p-8">
          <h1 className="font-serif text-2xl font-semibold text-stone-900 sm:text-3xl">{title}</h1>
          {description ? (
            <div className="mt-3 space-y-3 leading-relaxed text-stone-700">{description}</div>
          ) : null}
          {children ? <div className="mt-6">{children}</div> : null}
        </div>
        {footer ? <div className="mt-6 text-center text-sm text-stone-700">{footer}</div> : null}
      </div>
    </PublicLayout>
  );
}

/** A calm, non-error notice inside the card (e.g. "Your session has expired"). */
export function AuthNotice({ children }: { children: ReactNode }) {
  return (
    <div
      role="status"
      className="mb-5 rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900"
    >
      {children}
    </div>
  );
}
