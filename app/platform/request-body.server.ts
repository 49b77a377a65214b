import { isMemoryBudgetSpent, tryLaterResponse } from "./memory-budget.server";
import { isBodyTooLarge } from "./route-body-limit";

/**
 * A request body's bytes, or null when it is longer than `maxBytes`: read
 * chunk by chunk and abandoned once over, so an endpoint that takes raw
 * bodies (the Stripe webhook) cannot be made to hold an arbitrary amount in
 * memory. A Content-Length over the limit is refused before reading, and so
 * is a body the server ended for passing the route's limit (server/body-limit.ts);
 * one it ended because the memory budget had no room is answered 503.
 */
export async function readBodyBytes(request: Request, maxBytes: number): Promise<Buffer | null> {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) return null;
  if (!request.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let received = 0;
  const reader = request.body.getReader();
  for (;;) {
    let read: ReadableStreamReadResult<Uint8Array>;
    try {
      read = await reader.read();
    } catch (error) {
      if (isBodyTooLarge(error)) return null;
      if (isMemoryBudgetSpent(error)) throw tryLaterResponse();
      throw error;
    }
    const { done, value } = read;
    if (done) break;
    received += value.byteLength;
    if (received > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** The same, as UTF-8 text. */
export async function readBodyText(request: Request, maxBytes: number): Promise<string | null> {
  return (await readBodyBytes(request, maxBytes))?.toString("utf8") ?? null;
}
