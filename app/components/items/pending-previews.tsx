import { useRevalidator } from "@remix-run/react";
import { useEffect, useRef } from "react";

/** Waits between looks: quick at first (most pages answer in a second), then further apart. */
const WAITS_MS = [1_500, 2_000, 3_000, 5_000, 8_000, 13_000, 20_000];

/**
 * While a saved link's preview card is still being fetched in the background,
 * looks again a few times so the card appears without a reload, and stops
 * once none is pending or after about a minute (a page that never answers
 * is given up on by the fetch, and the plain link stays). Without
 * JavaScript the card shows on the next visit.
 */
export function useRefreshWhilePreviewsPending(pending: boolean) {
  const { revalidate, state } = useRevalidator();
  const looks = useRef(0);

  useEffect(() => {
    if (!pending) {
      looks.current = 0;
      return;
    }
    const wait = WAITS_MS[looks.current];
    if (wait === undefined || state !== "idle") return;
    const timer = setTimeout(() => {
      looks.current += 1;
      if (document.visibilityState === "visible") revalidate();
    }, wait);
    return () => clearTimeout(timer);
  }, [pending, state, revalidate]);
}

/** How often a page without JavaScript asks again while a clip is being prepared. */
const RELOAD_WITHOUT_SCRIPT_SECONDS = 10;

/**
 * Without JavaScript the preparing clip's card would sit at its first
 * percentage until a reload: the page reloads itself (a refresh in
 * <noscript>, which a browser running scripts never reads, so the card's own
 * looks above stay the only ones). Only while nothing is typed into it: the
 * caller leaves it out under an open dialog.
 */
export function ReloadWithoutScriptWhile({ preparing }: { preparing: boolean }) {
  if (!preparing) return null;
  return (
    <noscript>
      <meta httpEquiv="refresh" content={String(RELOAD_WITHOUT_SCRIPT_SECONDS)} />
    </noscript>
  );
}
