import { Form } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { CsrfInput } from "~/components/forms";
import type { Toast } from "~/utils/toast.server";

const TOAST_DURATION_MS = 5000;

/**
 * Shows the server's flash message. Without JavaScript it simply stays on the
 * page; with it, it closes after 5 s unless hovered or focused, and one new
 * toast replaces the last.
 */
export function Toaster({ toast }: { toast: Toast | null }) {
  const [visible, setVisible] = useState<Toast | null>(toast);
  const [paused, setPaused] = useState(false);
  const remaining = useRef(TOAST_DURATION_MS);

  useEffect(() => {
    setVisible(toast);
    remaining.current = TOAST_DURATION_MS;
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

  if (!visible) return null;
  const destructive = visible.variant === "destructive";
  return (
    <section
      aria-label="Notifications"
      className="pointer-events-none fixed inset-x-0 top-3 z-50 flex justify-center px-3 sm:bottom-4 sm:left-auto sm:right-4 sm:top-auto sm:w-[420px]"
    >
      {/* biome-ignore lint/a11y/noStaticElementInteractions: hovering only pauses the auto-close timer (spec); the dismiss button is the control */}
      <div
        role={destructive ? "alert" : "status"}
        onMouseEnter={() => setPaused(true)}
        onMouseLeave={() => setPaused(false)}
        onFocus={() => setPaused(true)}
        onBlur={() => setPaused(false)}
        className={`pointer-events-auto w-full rounded-xl border px-4 py-3 shadow-lg ${
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
          <button
            type="button"
            onClick={() => setVisible(null)}
            className="flex h-11 w-11 shrink-0 items-center justify-center rounded-full text-sm text-stone-600 hover:bg-stone-100"
            aria-label="Dismiss notification"
          >
            ✕
          </button>
        </div>
      </div>
    </section>
  );
}
