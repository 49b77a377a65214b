import type { EntryContext } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { renderToString } from "react-dom/server";
import { NonceProvider } from "./nonce-provider";

/**
 * What <RemixServer> reads the single-fetch hand-off from while it renders
 * (@remix-run/react 2.17's `StreamTransfer`): one promise per chunk, keyed by
 * the chunk's number, that it suspends on until `result` is set.
 */
type HandoffChunk = Promise<void> & { result: { done: boolean; value: string } };
type RenderMeta = { streamCache?: Record<number, HandoffChunk>; didRenderScripts?: boolean };

/** The script that ends the hand-off; page text cannot contain it, React escapes "<". */
const HANDOFF_END = ">window.__remixContext.streamController.close();</script>";

function readyChunk(done: boolean, value: string): HandoffChunk {
  return Object.assign(Promise.resolve(), { result: { done, value } });
}

async function readToEnd(stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    text += decoder.decode(chunk.value, { stream: true });
  }
  reader.releaseLock();
  return text + decoder.decode();
}

/**
 * The whole HTML document of a page, in one synchronous render.
 *
 * Remix renders single-fetch pages with React's streaming renderer: the
 * loader data follows the markup in chunks the page waits for behind Suspense
 * boundaries. Our loaders return no promises, so the data is complete before
 * rendering starts, and the streaming (React's stream writer, the retried
 * boundaries, four stream layers) was a large part of the dashboard's time
 * (docs/decisions/0037-rendering-pages-in-one-pass.md). So the hand-off is read to its end first and given to
 * Remix as already read, and the page is rendered with `renderToString`. A
 * loader that did return a promise would simply be waited for, as bots were
 * always served. If a Remix upgrade reads the hand-off differently, the data
 * would be missing from the page: that is an error here, never a page that
 * silently fails to hydrate. See docs/decisions/0037-rendering-pages-in-one-pass.md.
 */
export async function renderDocument(context: EntryContext, url: string, nonce: string) {
  const handoff = context.serverHandoffStream;
  const meta = context.renderMeta as RenderMeta | undefined;
  if (handoff) {
    if (!meta) throw new HandoffChangedError();
    meta.streamCache = { 0: readyChunk(false, await readToEnd(handoff)), 1: readyChunk(true, "") };
  }
  const html = renderToString(
    <NonceProvider value={nonce}>
      <RemixServer context={context} url={url} nonce={nonce} />
    </NonceProvider>,
  );
  // A page without <Scripts> has no hand-off to end; every page of ours has them.
  if (handoff && meta?.didRenderScripts !== false && !html.includes(HANDOFF_END)) {
    throw new HandoffChangedError();
  }
  return `<!DOCTYPE html>${html}`;
}

class HandoffChangedError extends Error {
  constructor() {
    super(
      "The page was rendered without its loader data: Remix no longer reads the single-fetch hand-off from renderMeta.streamCache (app/platform/render-document.server.tsx).",
    );
  }
}
