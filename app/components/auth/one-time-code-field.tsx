import { Link, useLocation, useSearchParams } from "@remix-run/react";
import type { InputHTMLAttributes, ReactNode } from "react";
import { Field } from "~/components/ui/forms";

/** The query parameter that turns a code field into a recovery-code field. */
export const RECOVERY_CODE_PARAM = "recovery-code";

const RECOVERY_CODE_HINT = "One of your recovery codes, such as k7qm-2xv9-tb4p";

/**
 * A field for a code from an authenticator app: the phone opens its number
 * pad, offers the code it just received (one-time-code) and the field takes
 * the focus, also without JavaScript (autofocus). Where a recovery code is
 * accepted too, a link switches the field to letters: a number pad cannot
 * type one. The switch is a plain link (`?recovery-code`), so it works
 * without JavaScript and the action reads the same `code` field either way
 * (docs/decisions/0129-code-fields-on-a-phone.md).
 */
export function OneTimeCodeField({
  label,
  hint,
  inputProps,
  errors,
  acceptsRecoveryCode,
  autoFocus = true,
}: {
  label: string;
  hint?: ReactNode;
  inputProps: InputHTMLAttributes<HTMLInputElement> & { key?: string | null };
  errors?: string[] | null;
  acceptsRecoveryCode: boolean;
  autoFocus?: boolean;
}) {
  const [searchParams] = useSearchParams();
  const { pathname } = useLocation();
  const recovery = acceptsRecoveryCode && searchParams.has(RECOVERY_CODE_PARAM);
  const otherMode = new URLSearchParams(searchParams);
  if (recovery) otherMode.delete(RECOVERY_CODE_PARAM);
  else otherMode.set(RECOVERY_CODE_PARAM, "");
  const otherModeSearch = String(otherMode);
  return (
    <Field
      label={label}
      labelAside={
        acceptsRecoveryCode ? (
          <Link
            to={{ pathname, search: otherModeSearch && `?${otherModeSearch}` }}
            replace
            preventScrollReset
            className="inline-flex min-h-11 items-center text-sm font-medium text-brand-800 underline underline-offset-2"
          >
            {recovery ? "Use a code from your app instead" : "Use a recovery code instead"}
          </Link>
        ) : null
      }
      hint={recovery ? RECOVERY_CODE_HINT : hint}
      inputProps={{
        ...inputProps,
        // A new input for the other mode: it mounts, so it takes the focus after a client-side switch too.
        key: `${inputProps.key ?? ""}-${recovery ? "recovery" : "app"}`,
        type: "text",
        inputMode: recovery ? "text" : "numeric",
        autoComplete: recovery ? "off" : "one-time-code",
        autoCapitalize: "none",
        autoCorrect: "off",
        spellCheck: false,
        autoFocus,
      }}
      errors={errors}
    />
  );
}
