import { db } from "#db/client.server";

export function checkDatabase(): { ok: true; queryMs: number } | { ok: false; error: string } {
  const started = performance.now();
  try {
    db.$client.prepare("SELECT count(*) FROM users").get();
    return { ok: true, queryMs: performance.now() - started };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
