import { useNavigate, useSubmit } from "@remix-run/react";
import { type ReactNode, useEffect } from "react";

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
 * A link for the pages that show many (the dashboard and its header): a
 * plain <a>. Remix's <Link> runs about ten hooks per link on the server
 * (path resolution, prefetch state, event handlers), a cost that shows on a
 * page of many links (docs/decisions/0032-delegated-links-forms-and-prepared-queries.md). With
 * JavaScript, <NavigationDelegation> in the root turns clicks on these links
 * into client-side navigations, as <Link> does. Without JavaScript both are
 * the same <a href>. The props are named one by one: copying "the rest" of
 * them took as long as the rest of the link.
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

type DelegatedFormProps = {
  /**
   * Where the form posts; a button's own `formAction` goes first and, with
   * neither, the page's own URL, as in the browser.
   */
  action?: string;
  className?: string;
  /** Keep the scroll position on a client-side submission, as <Form preventScrollReset>. */
  preventScrollReset?: boolean;
  children: ReactNode;
};

/**
 * A POST form for the pages that show many (the dashboard and its header):
 * a plain <form>, for the same reason as <DelegatedLink>. Remix's <Form>
 * resolves its action and sets up its submit handler on the server too, and
 * the dashboard's six forms cost as much as its 80 links did. With
 * JavaScript, <NavigationDelegation> submits these forms through the router,
 * as <Form> does: the pending states of `useNavigation` see them the same way.
 */
export function DelegatedForm(props: DelegatedFormProps) {
  return (
    <form
      method="post"
      action={props.action}
      className={props.className}
      data-delegated-form={props.preventScrollReset ? KEEP_SCROLL : ""}
    >
      {props.children}
    </form>
  );
}

/** Whether the browser would open the click or submission somewhere other than this tab. */
function opensElsewhere(target: string | null | undefined) {
  return Boolean(target && target !== "_self");
}

/**
 * One click and one submit listener on the document for every
 * <DelegatedLink> and <DelegatedForm>; rendered once, in the root.
 */
export function NavigationDelegation() {
  const navigate = useNavigate();
  const submit = useSubmit();
  useEffect(() => {
    function onClick(event: MouseEvent) {
      if (event.defaultPrevented || event.button !== 0) return;
      if (event.metaKey || event.altKey || event.ctrlKey || event.shiftKey) return;
      const anchor = event.target instanceof Element ? event.target.closest("a") : null;
      if (!anchor?.hasAttribute("data-delegated-link")) return;
      if (opensElsewhere(anchor.target) || anchor.hasAttribute("download")) return;
      const url = new URL(anchor.href);
      if (url.origin !== window.location.origin) return;
      event.preventDefault();
      navigate(`${url.pathname}${url.search}${url.hash}`, {
        preventScrollReset: anchor.getAttribute("data-delegated-link") === KEEP_SCROLL,
      });
    }
    function onSubmit(event: SubmitEvent) {
      const form = event.target;
      if (event.defaultPrevented || !(form instanceof HTMLFormElement)) return;
      if (!form.hasAttribute("data-delegated-form")) return;
      const submitter =
        event.submitter instanceof HTMLButtonElement || event.submitter instanceof HTMLInputElement
          ? event.submitter
          : null;
      if (opensElsewhere(submitter?.getAttribute("formtarget") ?? form.target)) return;
      event.preventDefault();
      submit(submitter ?? form, {
        // The browser's order. Left to the router, a form without an action would post to the
        // route that called useSubmit (the root), not to this page.
        action:
          submitter?.getAttribute("formaction") ??
          form.getAttribute("action") ??
          `${window.location.pathname}${window.location.search}`,
        preventScrollReset: form.getAttribute("data-delegated-form") === KEEP_SCROLL,
      });
    }
    document.addEventListener("click", onClick);
    document.addEventListener("submit", onSubmit);
    return () => {
      document.removeEventListener("click", onClick);
      document.removeEventListener("submit", onSubmit);
    };
  }, [navigate, submit]);
  return null;
}
