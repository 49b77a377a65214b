import type { HeadersFunction, MetaFunction } from "@remix-run/node";
import { Form, Link } from "@remix-run/react";
import type { ReactNode } from "react";
import { AuthCard } from "~/components/auth/auth-card";
import { CsrfInput, FormAlert, SubmitButton } from "~/components/ui/forms";

/**
 * The pages a recipient reaches from a link in an e-mail (unsubscribe,
 * re-subscribe, don't ask again): no account, a signed link, one card. They
 * are never cached (they answer for one address) nor indexed.
 */
export function recipientPageMeta(title: string): MetaFunction {
  return () => [{ title: `${title} · Thoughtfully` }, { name: "robots", content: "noindex" }];
}

export const recipientPageHeaders: HeadersFunction = ({ parentHeaders }) => {
  const headers = new Headers(parentHeaders);
  headers.set("Cache-Control", "no-store");
  return headers;
};

function GoHome({ className }: { className: string }) {
  return (
    <Link to="/" className={className}>
      Go to Thoughtfully
    </Link>
  );
}

/** The link cannot be used: what went wrong, then what it means for the reader. */
export function RecipientLinkProblem({
  title,
  alert,
  explanation,
}: {
  title: string;
  alert: string;
  explanation: string;
}) {
  return (
    <AuthCard forRecipient title={title} description={<p role="alert">{alert}</p>}>
      <p className="text-sm text-stone-700">{explanation}</p>
      <GoHome className="btn-secondary mt-5 w-full" />
    </AuthCard>
  );
}

/** The reader's choice is saved; `description` says what it changes (its first line a status). */
export function RecipientChoiceDone({
  title,
  description,
}: {
  title: string;
  description: ReactNode;
}) {
  return (
    <AuthCard forRecipient title={title} description={description}>
      <GoHome className="btn-secondary w-full" />
    </AuthCard>
  );
}

/**
 * A choice made only by pressing the button: mail scanners follow links and
 * some run scripts, so opening the page changes nothing and nothing submits
 * the form by script.
 */
export function PressToConfirmForm({
  fields,
  label,
  pendingText,
  error,
}: {
  fields: Record<string, string | number>;
  label: string;
  pendingText: string;
  error?: string;
}) {
  return (
    <>
      <Form method="post">
        {error ? (
          <div className="mb-4">
            <FormAlert errors={[error]} />
          </div>
        ) : null}
        <CsrfInput />
        {Object.entries(fields).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <SubmitButton pendingText={pendingText}>{label}</SubmitButton>
      </Form>
      <p className="mt-3 text-center text-sm text-stone-600">
        Nothing changes unless you press the button.
      </p>
    </>
  );
}
