import { Transform } from "node:stream";

/**
 * The pipe from React's renderer to the response. React writes its HTML in
 * 2 KB pieces, and each piece would travel on its own through the web stream
 * Remix returns and on to the socket: on the dashboard that per-piece work
 * cost more than rendering the item list (`npm run bench:dashboard`). This
 * joins the pieces React writes in one go (the shell, then each streamed part
 * as it resolves) into one chunk, passed on as soon as React's synchronous
 * write is over (a microtask later): nothing waits for more data.
 */
export function createCoalescingStream() {
  let pending: Buffer[] = [];
  let scheduled = false;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      pending.push(chunk);
      if (!scheduled) {
        scheduled = true;
        queueMicrotask(passOn);
      }
      callback();
    },
    flush(callback) {
      passOn();
      callback();
    },
  });
  function passOn() {
    scheduled = false;
    if (pending.length === 0 || stream.destroyed) return;
    const joined = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
    pending = [];
    stream.push(joined);
  }
  return stream;
}
