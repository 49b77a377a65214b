import { Link } from "@remix-run/react";
import { createFocusTrap } from "focus-trap";
import { type ReactNode, useEffect, useId, useRef } from "react";

const FIRST_FIELD =
  'input:not([type="hidden"]):not([disabled]):not([type="checkbox"]):not([type="radio"]), select:not([disabled]), textarea:not([disabled])';

/**
 * A dialog that is a route: without JavaScript it is a page that looks like
 * a dialog over its parent; with it, focus moves to its first field, Tab stays
 * inside (focus-trap), and Escape closes it, giving the focus back to what opened it.
 * Closing is a link back to the parent route.
 */
export function Dialog({
  title,
  closeTo,
  children,
  fullScreenOnPhone = false,
  wide = false,
}: {
  title: string;
  closeTo: string;
  children: ReactNode;
  /** Below the `sm` width the dialog fills the screen and its content may fill its height. */
  fullScreenOnPhone?: boolean;
  /** Room for a 600 px e-mail beside its margins (the Email Preview). */
  wide?: boolean;
}) {
  const titleId = useId();
  const panel = useRef<HTMLDivElement>(null);
  const close = useRef<HTMLAnchorElement>(null);

  useEffect(() => {
    const dialog = panel.current;
    if (!dialog) return;
    // The first field takes the focus (one tap less, and the phone's keyboard opens);
    // a dialog without fields, a question, focuses itself so its title is read first.
    // Someone already in a field of the sheet keeps their place: asked when focus-trap moves
    // the focus (a tick after activating), as a tap in that tick went into the first field.
    const initialFocus = () =>
      dialog.contains(document.activeElement) && document.activeElement !== dialog
        ? false
        : (dialog.querySelector<HTMLElement>(FIRST_FIELD) ?? dialog);
    // Tab stays inside; on closing, the focus goes back to what opened it (the Add button).
    const trap = createFocusTrap(dialog, {
      initialFocus,
      fallbackFocus: dialog,
      // Escape closes by going back to the parent route, below; a toast stays clickable.
      escapeDeactivates: false,
      allowOutsideClick: true,
      returnFocusOnDeactivate: true,
    });
    trap.activate();
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === "Escape") close.current?.click();
    };
    document.addEventListener("keydown", onKeyDown);
    return () => {
      document.removeEventListener("keydown", onKeyDown);
      trap.deactivate();
    };
  }, []);

  // On a phone a toast sits at the bottom, over a sheet's buttons: while one shows, the sheet
  // keeps clear of it (docs/decisions/0173-sheets-keep-clear-of-a-toast.md).
  const clearOfToast =
    "max-sm:[body:has([data-toast]):not(:has(.toast-dismiss:checked))_&]:pb-32 max-sm:[body:has([data-toast]):not(:has(.toast-dismiss:checked))_&]:scroll-pb-32";
  return (
    <div className="fixed inset-0 z-40 flex items-end justify-center bg-stone-900/50 p-0 sm:items-center sm:p-4">
      <div
        ref={panel}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        className={`${clearOfToast} ${
          fullScreenOnPhone
            ? `flex h-[100dvh] w-full ${wide ? "max-w-3xl" : "max-w-lg"} flex-col overflow-y-auto bg-white p-4 shadow-xl focus:outline-none sm:block sm:h-auto sm:max-h-[90vh] sm:rounded-2xl sm:p-6`
            : `max-h-[90vh] w-full ${wide ? "max-w-3xl" : "max-w-lg"} overflow-y-auto rounded-t-2xl bg-white p-6 shadow-xl focus:outline-none sm:rounded-2xl`
        }`}
      >
        <div className="flex items-start justify-between gap-4">
          <h2 id={titleId} className="font-serif text-xl font-semibold text-stone-900">
            {title}
          </h2>
          <Link
            ref={close}
            to={closeTo}
            preventScrollReset
            aria-label="Close"
            className="-mr-2 -mt-2 flex h-11 w-11 shrink-0 items-center justify-center rounded-full text-stone-500 hover:bg-stone-100 hover:text-stone-800"
          >
            ✕
          </Link>
        </div>
        <div
          className={
            fullScreenOnPhone ? "mt-2 flex min-h-0 flex-1 flex-col sm:mt-4 sm:block" : "mt-4"
          }
        >
          {children}
        </div>
      </div>
    </div>
  );
}
