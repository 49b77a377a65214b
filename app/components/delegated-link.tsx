import { useNavigate } from "@remix-run/react";
import { type ReactNode, useEffect } from "react";
import { html, type SafeHtml } from "~/utils/html";

type DelegatedLinkProps = {
  /** An absolute path of this app ("/folders/3/edit"). */
  to: string;
  className?: string;
  "aria-label"?: string;
  "aria-current"?: "page";
  /** Keep the scroll position on a client-side navigation, as <Link preventScrollReset>. */
  preventScrollReset?: boolean;
  children: ReactNode;
};

const KEEP_SCROLL = "keep-scroll";

/**
 * A link for the pages that show many (the dashboard's items and folders):
 * a plain <a>. Remix's <Link> runs about ten hooks per link on the server
 * (path resolution, prefetch state, event handlers), and 80 of them were a
 * tenth of the dashboard's render time (`npm run bench:dashboard`). With
 * JavaScript, <LinkDelegation> in the root turns clicks on these links into
 * client-side navigations, as <Link> does. Without JavaScript both are the
 * same <a href>. The props are named one by one: copying "the
 * rest" of them took as long as the rest of the link.
 */
export function DelegatedLink(props: DelegatedLinkProps) {
  return (
    <a
      href={props.to}
      className={props.className}
      aria-label={props["aria-label"]}
      aria-current={props["aria-current"]}
      data-delegated-link={props.preventScrollReset ? KEEP_SCROLL : ""}
    >
      {props.children}
    </a>
  );
}

/** The same link in markup written as HTML (app/components/item-card.ts). */
export function delegatedLinkHtml(props: Omit<DelegatedLinkProps, "children">, content: SafeHtml) {
  return html`<a href="${props.to}"${props.className && html` class="${props.className}"`}${
    props["aria-label"] && html` aria-label="${props["aria-label"]}"`
  }${props["aria-current"] && html` aria-current="${props["aria-current"]}"`} data-delegated-link="${
    props.preventScrollReset ? KEEP_SCROLL : ""
  }">${content}</a>`;
}

/** One click listener on the document for every <DelegatedLink>; rendered once, in the root. */
export function LinkDelegation() {
  const navigate = useNavigate();
  useEffect(() => {
    function onClick(event: MouseEvent) {
      if (event.defaultPrevented || event.button !== 0) return;
      if (event.metaKey || event.altKey || event.ctrlKey || event.shiftKey) return;
      const anchor = event.target instanceof Element ? event.target.closest("a") : null;
      if (!anchor?.hasAttribute("data-delegated-link")) return;
      if ((anchor.target && anchor.target !== "_self") || anchor.hasAttribute("download")) return;
      const url = new URL(anchor.href);
      if (url.origin !== window.location.origin) return;
      event.preventDefault();
      navigate(`${url.pathname}${url.search}${url.hash}`, {
        preventScrollReset: anchor.getAttribute("data-delegated-link") === KEEP_SCROLL,
      });
    }
    document.addEventListener("click", onClick);
    return () => document.removeEventListener("click", onClick);
  }, [navigate]);
  return null;
}
