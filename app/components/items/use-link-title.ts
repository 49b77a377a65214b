import { useFetcher } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { isValidUrl, normalizeUrl } from "~/modules/items/item-validation";

/**
 * Fills an empty Title with the linked page's own as soon as an address is pasted or typed
 * (docs/decisions/0199-the-app-fills-what-it-knows.md), asking app/routes/link-title.ts once
 * per address. The title it filled follows the address: another address gets that page's title
 * (or none). A title the person typed is never replaced.
 */
export function useLinkTitle({
  address,
  title,
  fill,
}: {
  address: string | undefined;
  title: string | undefined;
  fill: (title: string) => void;
}) {
  const fetcher = useFetcher<{ url: string; title: string }>();
  const url = normalizeUrl(address ?? "");
  // The title this hook put in the field last: while the field holds it, it is the app's.
  const filled = useRef("");
  const ours = !title || title === filled.current;
  const wanted = ours && isValidUrl(url);
  const asked = useRef("");
  const { load } = fetcher;

  useEffect(() => {
    if (!wanted || asked.current === url) return;
    // A pause first: typing an address letter by letter asks once, for the whole of it.
    const timer = setTimeout(() => {
      asked.current = url;
      load(`/link-title?${new URLSearchParams({ url })}`);
    }, 400);
    return () => clearTimeout(timer);
  }, [wanted, url, load]);

  const found = fetcher.data;
  useEffect(() => {
    if (!found || found.url !== url || !ours || found.title === (title ?? "")) return;
    filled.current = found.title;
    fill(found.title);
  }, [found, url, ours, title, fill]);

  return { looking: wanted && fetcher.state === "loading" };
}
