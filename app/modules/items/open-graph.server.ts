/** Where every copy of undici, Node's own included, keeps the process-wide dispatcher. */
const UNDICI_DISPATCHER = Symbol.for("undici.globalDispatcher.1");

/**
 * open-graph-scraper, loaded on first use so that it cannot take over fetch.
 * It imports its own undici 7, which on load installs its Agent as the
 * process-wide dispatcher that Node 20's built-in fetch then uses too; that
 * mix fails every fetch with a body ("invalid content-length header": seen
 * on the third-party sign-in's token request). We only hand it HTML we fetched
 * ourselves, so its dispatcher is put back as it was.
 */
let scraper: Promise<typeof import("open-graph-scraper")> | undefined;
export function openGraphScraper() {
  scraper ??= (async () => {
    // Node's fetch installs its own dispatcher when first used (a data: address
    // needs no network), so there is one to put back.
    await fetch("data:,");
    const globals = globalThis as Record<symbol, unknown>;
    const nodeDispatcher = globals[UNDICI_DISPATCHER];
    const { default: ogs } = await import("open-graph-scraper");
    globals[UNDICI_DISPATCHER] = nodeDispatcher;
    return ogs;
  })();
  return scraper;
}
