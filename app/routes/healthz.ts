import { checkDatabase } from "~/utils/health.server";

/** Fly's health check: 200 while the database answers, 503 when it does not. */
export function loader() {
  const health = checkDatabase();
  return new Response(health.ok ? "OK" : `Database unavailable: ${health.error}`, {
    status: health.ok ? 200 : 503,
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
