import { createCookie } from "@remix-run/node";
import { env } from "~/utils/env.server";

/** Small per-browser choices, such as a dismissed announcement, kept in a cookie. */
const bannerCookie = createCookie("thoughtfully_banner", {
  httpOnly: true,
  sameSite: "lax",
  path: "/",
  secure: env.isHttps,
  maxAge: 60 * 60 * 24 * 365,
});

export async function isBannerDismissed(request: Request) {
  return (await bannerCookie.parse(request.headers.get("Cookie"))) === "dismissed";
}

export function dismissBannerCookie() {
  return bannerCookie.serialize("dismissed");
}
