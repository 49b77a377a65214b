import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { BUDGET_WAIT_MS, memoryBudget } from "./memory-budget.server";

/**
 * Fetches a page or a picture from an address a user typed, without letting
 * that address reach inside our network (server-side request forgery). The
 * connection goes through request-filtering-agent, which refuses private,
 * loopback, link-local, unique-local and unspecified addresses, IPv4 and IPv6,
 * after DNS resolution (so a public name that resolves to 127.0.0.1 is refused
 * too). Redirects are followed here, one hop at a time, each hop checked again.
 * Time, size and redirect count are bounded; no cookies are sent or kept.
 * The rules are written down in docs/decisions/0063-link-previews.md.
 */
export const PREVIEW_USER_AGENT =
  "ThoughtfullyBot/1.0 (+https://thoughtfully.app/support; link previews)";

export type SafeFetchOptions = {
  maxBytes: number;
  /** For the whole fetch, redirects included. */
  timeoutMs: number;
  maxRedirects: number;
  accept: string;
  /** Tests only (env LINK_PREVIEW_ALLOW_LOOPBACK): 127.0.0.1 and ::1, on any port. */
  allowLoopback?: boolean;
  /** Tests only: resolves names instead of the system's DNS. */
  lookup?: LookupFunction;
};

export type SafeFetchResult = { url: string; contentType: string; body: Buffer };

/**
 * Refused or failed: the link then stays a plain link. `permanent`: asking
 * again will not help (an address we refuse, a 4xx answer).
 */
export class SafeFetchError extends Error {
  override name = "SafeFetchError";

  constructor(
    message: string,
    readonly permanent = false,
  ) {
    super(message);
  }
}

const DEFAULT_PORTS = new Set(["", "80", "443"]);
const LOOPBACK = ["127.0.0.1", "::1"];

/** The address as a URL we may fetch, or a SafeFetchError saying why not. */
export function checkFetchableUrl(address: string, allowLoopback = false): URL {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new SafeFetchError(`Not a URL: ${address}`, true);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new SafeFetchError(`Only http and https are fetched, not ${url.protocol}`, true);
  }
  if (url.username || url.password) throw new SafeFetchError("Addresses with credentials", true);
  if (!allowLoopback && !DEFAULT_PORTS.has(url.port)) {
    throw new SafeFetchError(`Only the ports 80 and 443 are fetched, not ${url.port}`, true);
  }
  return url;
}

async function agentFor(url: URL, allowLoopback: boolean) {
  // Loaded on the first fetch, not at start (docs/performance.md, "Cold start").
  const { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } = await import(
    "request-filtering-agent"
  );
  const options = { keepAlive: false, allowIPAddressList: allowLoopback ? LOOPBACK : [] };
  return url.protocol === "https:"
    ? new RequestFilteringHttpsAgent(options)
    : new RequestFilteringHttpAgent(options);
}

type Hop =
  | { kind: "redirect"; location: string }
  | { kind: "body"; contentType: string; body: Buffer };

async function requestOnce(url: URL, options: SafeFetchOptions, signal: AbortSignal): Promise<Hop> {
  const allowLoopback = options.allowLoopback ?? false;
  const client = url.protocol === "https:" ? https : http;
  const agent = await agentFor(url, allowLoopback);
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: "GET",
        agent,
        signal,
        lookup: options.lookup,
        headers: {
          "User-Agent": PREVIEW_USER_AGENT,
          Accept: options.accept,
          "Accept-Encoding": "identity",
        },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400 && response.headers.location) {
          response.resume();
          resolve({ kind: "redirect", location: response.headers.location });
          return;
        }
        if (status < 200 || status >= 300) {
          response.resume();
          reject(new SafeFetchError(`HTTP ${status}`, status >= 400 && status < 500));
          return;
        }
        const declared = Number(response.headers["content-length"] ?? 0);
        if (declared > options.maxBytes) {
          response.destroy();
          reject(new SafeFetchError(`Larger than ${options.maxBytes} bytes`));
          return;
        }
        const chunks: Buffer[] = [];
        let received = 0;
        response.on("data", (chunk: Buffer) => {
          received += chunk.length;
          if (received > options.maxBytes) {
            response.destroy();
            reject(new SafeFetchError(`Larger than ${options.maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on("end", () =>
          resolve({
            kind: "body",
            contentType: String(response.headers["content-type"] ?? ""),
            body: Buffer.concat(chunks),
          }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", (error) =>
      reject(
        error instanceof SafeFetchError
          ? error
          : // request-filtering-agent's refusal of an address: the same answer every time.
            new SafeFetchError(error.message, /is not allowed/.test(error.message)),
      ),
    );
    request.end();
  });
}

/** GETs `address`, following at most `maxRedirects` redirects, each hop checked again. */
export async function safeFetch(
  address: string,
  options: SafeFetchOptions,
): Promise<SafeFetchResult> {
  let url = checkFetchableUrl(address, options.allowLoopback);
  // The page's chunks and their joined copy, counted against the memory budget while they arrive.
  const held = await memoryBudget.reserve(2 * options.maxBytes, { waitMs: BUDGET_WAIT_MS });
  if (!held) throw new SafeFetchError("The server is busy: not fetched now");
  try {
    const signal = AbortSignal.timeout(options.timeoutMs);
    for (let hop = 0; hop <= options.maxRedirects; hop++) {
      const result = await requestOnce(url, options, signal);
      if (result.kind === "body") {
        return { url: url.toString(), contentType: result.contentType, body: result.body };
      }
      url = checkFetchableUrl(new URL(result.location, url).toString(), options.allowLoopback);
    }
    throw new SafeFetchError(`More than ${options.maxRedirects} redirects`, true);
  } finally {
    held.release();
  }
}
