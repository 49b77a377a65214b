import { Form } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { useHydrated } from "remix-utils/use-hydrated";
import { CsrfInput } from "~/components/ui/forms";
import type { Toast } from "~/platform/toast.server";

const TOAST_DURATION_MS = 5000;
const DISMISS_CLASS =
  "flex h-11 w-11 shrink-0 items-center justify-center rounded-full text-sm text-stone-600 hover:bg-stone-100";
/** How far right a toast must be dragged before letting go closes it (50 px: docs/product-rules.md, Pages and messages). */
export const SWIPE_THRESHOLD_PX = 50;
/** The key that moves focus to the notifications (docs/product-rules.md, Pages and messages). */
const HOTKEY = "F8";

/**
 * Shows the server's flash message at the bottom of the screen (of a phone's
 * whole width; at the right on a wider screen), away from the header and its
 * menus. Without JavaScript it stays until its ✕ is tapped: the ✕ is the
 * label of a checkbox that hides the toast by CSS. With JavaScript it closes
 * after 5 s unless hovered or focused, and one new toast replaces the last.
 * Dragging it right by 50 px or more closes it (a mouse or a finger: pointer
 * events), and F8 moves focus to it, so a keyboard user can reach its
 * buttons from anywhere on the page
 * (docs/decisions/0131-toasts-and-menus-that-get-out-of-the-way.md).
 */
export function Toaster({ toast }: { toast: Toast | null }) {
  const [visible, setVisible] = useState<Toast | null>(toast);
  const [paused, setPaused] = useState(false);
  const [swipeX, setSwipeX] = useState(0);
  const swipeStart = useRef<number | null>(null);
  const remaining = useRef(TOAST_DURATION_MS);
  const viewport = useRef<HTMLElement>(null);
  const hydrated = useHydrated();

  useEffect(() => {
    function focusOnHotkey(event: KeyboardEvent) {
      if (event.key !== HOTKEY) return;
      event.preventDefault();
      viewport.current?.focus();
    }
    window.addEventListener("keydown", focusOnHotkey);
    return () => window.removeEventListener("keydown", focusOnHotkey);
  }, []);

  useEffect(() => {
    setVisible(toast);
    remaining.current = TOAST_DURATION_MS;
    setSwipeX(0);
  }, [toast]);

  useEffect(() => {
    // A toast with a button (Undo) stays until dismissed: it must not vanish under the thumb.
    if (!visible || paused || visible.action) return;
    const started = Date.now();
    const timer = setTimeout(() => setVisible(null), remaining.current);
    return () => {
      clearTimeout(timer);
      remaining.current -= Date.now() - started;
    };
  }, [visible, paused]);

  function endSwipe() {
    if (swipeStart.current === null) return;
    swipeStart.current = null;
    if (swipeX >= SWIPE_THRESHOLD_PX) setVisible(null);
    setSwipeX(0);
  }

  const destructive = visible?.variant === "destructive";
  return (
    <section
      ref={viewport}
      tabIndex={-1}
      aria-label={`Notifications (${HOTKEY})`}
      className="pointer-events-none fixed inset-x-0 bottom-[max(0.75rem,env(safe-area-inset-bottom))] z-50 flex justify-center px-3 outline-hidden sm:bottom-4 sm:left-auto sm:right-4 sm:w-[420px]"
    >
      {visible ? (
        /* biome-ignore lint/a11y/noStaticElementInteractions: hovering only pauses the auto-close timer and dragging is a shortcut for the dismiss button, which stays the control */
        <div
          role={destructive ? "alert" : "status"}
          data-toast
          onMouseEnter={() => setPaused(true)}
          onMouseLeave={() => setPaused(false)}
          onFocus={() => setPaused(true)}
          onBlur={() => setPaused(false)}
          onPointerDown={(event) => {
            if ((event.target as HTMLElement).closest("button")) return;
            swipeStart.current = event.clientX;
            event.currentTarget.setPointerCapture(event.pointerId);
          }}
          onPointerMove={(event) => {
            if (swipeStart.current === null) return;
            setSwipeX(Math.max(0, event.clientX - swipeStart.current));
          }}
          onPointerUp={endSwipe}
          onPointerCancel={() => {
            swipeStart.current = null;
            setSwipeX(0);
          }}
          style={swipeX > 0 ? { transform: `translateX(${swipeX}px)` } : undefined}
          className={`pointer-events-auto w-full touch-pan-y select-none rounded-xl border px-4 py-3 shadow-lg has-[.toast-dismiss:checked]:hidden ${
            destructive
              ? "border-red-200 bg-red-50 text-red-900"
              : "border-brand-200 bg-white text-stone-900"
          }`}
        >
          <div className="flex items-center gap-3">
            <div className="flex-1">
              <p className="font-semibold">{visible.title}</p>
              {visible.description ? <p className="mt-0.5 text-sm">{visible.description}</p> : null}
            </div>
            {visible.action ? (
              <Form method="post" action={visible.action.formAction}>
                <CsrfInput />
                <button type="submit" className="btn-secondary min-h-11 px-4 py-2">
                  {visible.action.label}
                </button>
              </Form>
            ) : null}
            {hydrated ? (
              <button
                type="button"
                onClick={() => setVisible(null)}
                className={DISMISS_CLASS}
                aria-label="Dismiss notification"
              >
                ✕
              </button>
            ) : (
              <label
                className={`${DISMISS_CLASS} cursor-pointer has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-blue-500/50`}
              >
                <input
                  type="checkbox"
                  autoComplete="off"
                  className="toast-dismiss sr-only"
                  aria-label="Dismiss notification"
                />
                <span aria-hidden="true">✕</span>
              </label>
            )}
          </div>
        </div>
      ) : null}
    </section>
  );
}
