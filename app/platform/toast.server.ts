import crypto from "node:crypto";
import { createCookieSessionStorage, redirect } from "@remix-run/node";
import { z } from "~/platform/zod";
import { env } from "./env.server";
import { NotFoundError, RuleError, throwIfDatabaseBusy } from "./errors.server";

/**
 * Flash messages ride in their own short-lived cookie, set by the response
 * that redirects and cleared by the page that shows them, so they appear with
 * or without JavaScript.
 */
const toastSchema = z.object({
  id: z.string().default(() => crypto.randomUUID()),
  title: z.string(),
  description: z.string().optional(),
  variant: z.enum(["default", "destructive"]).default("default"),
  /** A button in the toast that posts to `formAction` (Undo): a form, so it works without JavaScript. */
  action: z.object({ label: z.string(), formAction: z.string() }).optional(),
});

export type Toast = z.infer<typeof toastSchema>;
export type ToastInput = z.input<typeof toastSchema>;

const FLASH_KEY = "toast";

const toastStorage = createCookieSessionStorage({
  cookie: {
    name: env.isHttps ? "__Host-thoughtfully_toast" : "thoughtfully_toast",
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    secure: env.isHttps,
    secrets: [env.SESSION_SECRET],
  },
});

export async function createToastHeaders(toast: ToastInput) {
  const session = await toastStorage.getSession();
  session.flash(FLASH_KEY, toastSchema.parse(toast));
  return new Headers({ "Set-Cookie": await toastStorage.commitSession(session) });
}

export async function redirectWithToast(url: string, toast: ToastInput, init?: ResponseInit) {
  const headers = new Headers(init?.headers);
  for (const cookie of (await createToastHeaders(toast)).getSetCookie()) {
    headers.append("Set-Cookie", cookie);
  }
  return redirect(url, { ...init, headers });
}

/** Answers a Refresh button: the same page again, with the "Refreshed" toast (docs/product-rules.md, Admin dashboards). */
export function redirectRefreshed(request: Request) {
  const url = new URL(request.url);
  return redirectWithToast(`${url.pathname}${url.search}`, { title: "Refreshed" });
}

/** The pending toast, if any, and the header that clears it. */
export async function getToast(request: Request) {
  const session = await toastStorage.getSession(request.headers.get("Cookie"));
  const parsed = toastSchema.safeParse(session.get(FLASH_KEY));
  return {
    toast: parsed.success ? parsed.data : null,
    setCookie: parsed.success ? await toastStorage.destroySession(session) : null,
  };
}

/**
 * Runs an action's work; when it fails, the user goes back to `url` with the
 * failure toast (`title`, docs/product-rules.md, Pages and messages) instead of an error page. A rule the user
 * broke (a `RuleError`) is explained by its message; something missing or
 * someone else's (a `NotFoundError`) is the 404 page; anything else (the
 * database refused, a disk error) is logged for the operator and the toast
 * asks to try again (`retry`). Responses thrown on purpose (404s, redirects)
 * pass through.
 */
export async function withFailureToast(
  url: string,
  title: string,
  work: () => Response | Promise<Response>,
  retry = "Please try again.",
): Promise<Response> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof Response) throw error;
    throwIfDatabaseBusy(error);
    if (error instanceof NotFoundError) throw new Response("Not Found", { status: 404 });
    const rule = error instanceof RuleError;
    if (!rule) console.error(error);
    return redirectWithToast(url, {
      title,
      description: rule ? error.message : retry,
      variant: "destructive",
    });
  }
}
