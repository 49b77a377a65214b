import { createCookie } from "@remix-run/node";
import { env } from "~/platform/env.server";

/** Small per-browser choices, such as a dismissed announcement, kept in a cookie. */
const bannerCookie = createCookie("thoughtfully_banner", {
  httpOnly: true,
  sameSite: "lax",
  path: "/",
  secure: env.isHttps,
  maxAge: 60 * 60 * 24 * 365,
});

/** When folders went from two recipients to five: accounts made since never knew otherwise. */
export const RECIPIENTS_ANNOUNCED_AT = new Date("2026-11-22T00:00:00Z");

/** The announcement is hidden once dismissed, and never shown to an account newer than it. */
export async function isBannerDismissed(request: Request, user: { createdAt: Date }) {
  if (user.createdAt >= RECIPIENTS_ANNOUNCED_AT) return true;
  return (await bannerCookie.parse(request.headers.get("Cookie"))) === "dismissed";
}

export function dismissBannerCookie() {
  return bannerCookie.serialize("dismissed");
}
