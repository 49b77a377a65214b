import { db } from "~/platform/db.server";

export function checkDatabase(): { ok: true; queryMs: number } | { ok: false; error: string } {
  const started = performance.now();
  try {
    // One row, not a count: the answer must not grow with the table.
    db.$client.prepare("SELECT 1 FROM users LIMIT 1").get();
    return { ok: true, queryMs: performance.now() - started };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Fly's health check: 200 while the database answers, 503 when it does not.
 * The reason goes to the server's log, not to the public answer: database
 * error text names tables, paths and states an outsider has no use for.
 */
export function healthResponse() {
  const health = checkDatabase();
  if (!health.ok) console.error(`[healthz] database unavailable: ${health.error}`);
  return new Response(health.ok ? "OK" : "Database unavailable", {
    status: health.ok ? 200 : 503,
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
