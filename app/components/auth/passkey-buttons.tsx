import { useNavigate, useRouteLoaderData } from "@remix-run/react";
import {
  browserSupportsWebAuthn,
  startAuthentication,
  startRegistration,
} from "@simplewebauthn/browser";
import { useState } from "react";
import { useHydrated } from "remix-utils/use-hydrated";
import { CSRF_FIELD } from "~/platform/csrf";
import type { loader as rootLoader } from "~/root";

/**
 * Passkey buttons. WebAuthn is a browser call, so they need JavaScript: on
 * the server and without it they render nothing (or the `fallback`), and the
 * page's other ways in stay.
 */
function usePasskeyPost() {
  const csrfToken = useRouteLoaderData<typeof rootLoader>("root")?.csrfToken ?? "";
  return async (path: string, fields: Record<string, string>) => {
    const body = new FormData();
    body.set(CSRF_FIELD, csrfToken);
    for (const [name, value] of Object.entries(fields)) body.set(name, value);
    const response = await fetch(path, { method: "POST", body, credentials: "same-origin" });
    return { ok: response.ok, json: (await response.json()) as Record<string, unknown> };
  };
}

function usePasskeysAvailable() {
  const hydrated = useHydrated();
  return hydrated && browserSupportsWebAuthn();
}

export function PasskeySignInButton({
  redirectTo,
  // Not "Log in…": the log-in form's own button is "Log In", and tests find buttons by name.
  label = "Use a passkey",
  // Signing in, or (on /login/step-up) confirming it's you on the current session.
  action = "/passkeys/sign-in",
}: {
  redirectTo?: string | null;
  label?: string;
  action?: "/passkeys/sign-in" | "/passkeys/step-up";
}) {
  const available = usePasskeysAvailable();
  const post = usePasskeyPost();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!available) return null;
  async function signIn() {
    setBusy(true);
    setError(null);
    try {
      const started = await post(action, { intent: "options" });
      const response = await startAuthentication({
        optionsJSON: started.json.options as Parameters<
          typeof startAuthentication
        >[0]["optionsJSON"],
      });
      const finished = await post(action, {
        intent: "verify",
        response: JSON.stringify(response),
        redirectTo: redirectTo ?? "",
      });
      if (!finished.ok) throw new Error(String(finished.json.error));
      // A full load: the new session cookie is read by every loader from the start.
      window.location.assign(String(finished.json.redirectTo ?? "/"));
    } catch {
      setError("That passkey did not work. Please try again, or use another way to log in.");
      setBusy(false);
    }
  }
  return (
    <div className="space-y-2">
      <button type="button" className="btn-secondary w-full" disabled={busy} onClick={signIn}>
        {busy ? "Waiting for your passkey..." : label}
      </button>
      {error ? (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** "Confirm it's you" with a passkey of this account, then on to `redirectTo`. */
export function PasskeyReauthenticateButton({ redirectTo }: { redirectTo: string }) {
  const available = usePasskeysAvailable();
  const post = usePasskeyPost();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!available) return null;
  async function confirm() {
    setBusy(true);
    setError(null);
    try {
      const started = await post("/passkeys/reauthenticate", { intent: "options" });
      const response = await startAuthentication({
        optionsJSON: started.json.options as Parameters<
          typeof startAuthentication
        >[0]["optionsJSON"],
      });
      const finished = await post("/passkeys/reauthenticate", {
        intent: "verify",
        response: JSON.stringify(response),
        redirectTo,
      });
      if (!finished.ok) throw new Error(String(finished.json.error));
      window.location.assign(String(finished.json.redirectTo ?? "/profile"));
    } catch {
      setError("That passkey did not work. Please try again, or use another way.");
      setBusy(false);
    }
  }
  return (
    <div className="space-y-2">
      <button type="button" className="btn-secondary w-full" disabled={busy} onClick={confirm}>
        {busy ? "Waiting for your passkey..." : "Confirm with a passkey"}
      </button>
      {error ? (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      ) : null}
    </div>
  );
}

export function AddPasskeyButton() {
  const available = usePasskeysAvailable();
  const post = usePasskeyPost();
  const navigate = useNavigate();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!available) {
    return (
      <p className="mt-4 text-sm text-stone-600">
        Adding a passkey needs JavaScript in a browser that supports passkeys.
      </p>
    );
  }
  async function add() {
    setBusy(true);
    setError(null);
    try {
      const started = await post("/passkeys/register", { intent: "options" });
      // The server asks who you are first: off to "Confirm it's you", then back here.
      if (typeof started.json.reauthenticate === "string") {
        window.location.assign(started.json.reauthenticate);
        return;
      }
      const response = await startRegistration({
        optionsJSON: started.json.options as Parameters<typeof startRegistration>[0]["optionsJSON"],
      });
      const finished = await post("/passkeys/register", {
        intent: "verify",
        response: JSON.stringify(response),
        name: navigator.platform ? `Passkey (${navigator.platform})` : "Passkey",
      });
      if (!finished.ok) throw new Error(String(finished.json.error));
      navigate("/profile", { replace: true, preventScrollReset: true });
    } catch {
      setError("That passkey could not be added. Please try again.");
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="mt-4 space-y-2">
      <button type="button" className="btn-secondary" disabled={busy} onClick={add}>
        {busy ? "Waiting for your device..." : "Add a passkey"}
      </button>
      {error ? (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      ) : null}
    </div>
  );
}
