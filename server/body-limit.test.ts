import http from "node:http";
import net, { type AddressInfo } from "node:net";
import {
  createReadableStreamFromReadable,
  createRequestHandler,
  type ServerBuild,
} from "@remix-run/node";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { isMemoryBudgetSpent, MemoryBudget } from "~/platform/memory-budget.server";
import {
  BodyTooLargeError,
  FORM_BODY_LIMIT_BYTES,
  isBodyTooLarge,
  STREAMED_FORM_WORKING_SET_BYTES,
  WHOLE_BODY_HOLD_FACTOR,
} from "~/platform/route-body-limit";
import {
  BODY_PACE,
  BodyTooSlowError,
  bodyAllowanceMs,
  bodyClock,
  bodyMeter,
  bodyPolicyOf,
  boundBody,
  createBodyPolicies,
  createRouteFinder,
  refuseTooLarge,
} from "./body-limit";

/**
 * The app's route shapes (`remix routes`): a splat, pathless-parent index
 * routes, layouts with an index and children, nested dynamic routes,
 * resource routes. Each route with an action declares a limit of its own, so
 * a route chosen wrongly shows as a wrong limit. Remix's own request handler
 * over these routes is the oracle: its actions record which one ran.
 */
const MB = 1024 * 1024;
const Component = () => null;
type Shape = { path?: string; index?: boolean; parentId?: string; page?: boolean; limit?: number };
const SHAPES: Record<string, Shape> = {
  root: { path: "", page: true },
  "routes/$": { path: "*", parentId: "root", page: true },
  "routes/_auth+/login": { path: "login", parentId: "root", page: true },
  "routes/_marketing+/index": { index: true, parentId: "root", page: true },
  "routes/add+/_layout": { path: "add", parentId: "root", page: true },
  "routes/add+/_index": { index: true, parentId: "routes/add+/_layout", page: true },
  "routes/add+/$folderId": { path: ":folderId", parentId: "routes/add+/_layout", page: true },
  "routes/folders+/$folderId": { path: "folders/:folderId", parentId: "root", page: true },
  "routes/folders+/$folderId.add.$type": {
    path: "add/:type",
    parentId: "routes/folders+/$folderId",
    page: true,
    limit: 51 * MB,
  },
  "routes/folders+/$folderId.items.$itemId.edit": {
    path: "items/:itemId/edit",
    parentId: "routes/folders+/$folderId",
    page: true,
    limit: 52 * MB,
  },
  "routes/upload+/_layout": { path: "upload", parentId: "root", page: true },
  "routes/upload+/index": {
    index: true,
    parentId: "routes/upload+/_layout",
    page: true,
    limit: 53 * MB,
  },
  "routes/upload+/$draftId.check": { path: ":draftId/check", parentId: "routes/upload+/_layout" },
  "routes/api+/v1.$": { path: "api/v1/*", parentId: "root", limit: 54 * MB },
  "routes/api+/v1.folders.$folderId.upload": {
    path: "api/v1/folders/:folderId/upload",
    parentId: "root",
    limit: 201 * MB,
  },
  "routes/webhooks+/stripe": { path: "webhooks/stripe", parentId: "root", limit: 1 * MB },
  "routes/profile+/_layout": { path: "profile", parentId: "root", page: true },
  "routes/profile+/branding": {
    path: "branding",
    parentId: "routes/profile+/_layout",
    page: true,
    limit: 2 * MB,
  },
};

function syntheticBuild(ran: { id: string | null }) {
  const routes = Object.fromEntries(
    Object.entries(SHAPES).map(([id, shape]) => [
      id,
      {
        id,
        path: shape.path,
        index: shape.index,
        parentId: shape.parentId,
        module: {
          ...(shape.page ? { default: Component } : {}),
          ...(shape.limit ? { bodyLimit: { multipart: shape.limit } } : {}),
          action: () => {
            ran.id = id;
            return null;
          },
        },
      },
    ]),
  );
  return {
    mode: "production",
    entry: { module: { default: () => new Response("document") } },
    routes,
    assets: { routes: {}, entry: { imports: [], module: "" }, url: "", version: "1" },
    publicPath: "/build/",
    assetsBuildDirectory: "public/build",
    future: { v3_singleFetch: true, v3_relativeSplatPath: true, v3_throwAbortReason: true },
    isSpaMode: false,
  } as unknown as ServerBuild;
}

const ran: { id: string | null } = { id: null };
const build = syntheticBuild(ran);
const handle = createRequestHandler(build, "test");
const findRoute = createRouteFinder(build);
const policyOf = createBodyPolicies(build);

/** The route whose action Remix runs for a small multipart POST to `href`, or null when none does. */
async function routeRemixRuns(href: string) {
  ran.id = null;
  const body = new FormData();
  body.append("a", "b");
  await handle(new Request(href, { method: "POST", body })).catch(() => {});
  return ran.id;
}

/** `pathname` written another way that a URL parse brings back to it (or to a sibling). */
const spelledPath = (pathname: string) =>
  fc
    .record({
      detour: fc.constantFrom(
        "",
        "/x/..",
        "/x/%2e%2e",
        "/x/%2E%2E",
        "/webhooks/..",
        "/.",
        "/upload/.%2E",
      ),
      detourAt: fc.nat(),
      encodeAt: fc.option(fc.nat(), { nil: undefined }),
      upper: fc.boolean(),
      prefix: fc.constantFrom("", "/", "/./"),
      suffix: fc.constantFrom("", "/", "/.", ".data", "/.data", "//"),
      search: fc.constantFrom(
        "",
        "?index",
        "?index=",
        "?_data=routes/upload%2B/index",
        "?a=1&index",
      ),
    })
    .map(({ detour, detourAt, encodeAt, upper, prefix, suffix, search }) => {
      let base = upper ? pathname.toUpperCase() : pathname;
      if (encodeAt !== undefined) {
        const letters = [...base.matchAll(/[a-z]/gi)];
        const letter = letters[encodeAt % Math.max(letters.length, 1)];
        if (letter?.index !== undefined) {
          const code = `%${letter[0].charCodeAt(0).toString(16).toUpperCase()}`;
          base = `${base.slice(0, letter.index)}${code}${base.slice(letter.index + 1)}`;
        }
      }
      const segments = base.split("/").filter(Boolean);
      segments.splice(detourAt % (segments.length + 1), 0, detour.replace(/^\//, ""));
      const path = `/${segments.filter(Boolean).join("/")}`;
      return `http://localhost${prefix}${path}${suffix}${search}`;
    });

const PATHS = [
  "/login",
  "/",
  "/upload",
  "/upload/abc/check",
  "/add",
  "/add/5",
  "/folders/3/add/photo",
  "/folders/3/add/link",
  "/folders/3/items/9/edit",
  "/api/v1/folders/3/upload",
  "/api/v1/items/3/add-files",
  "/webhooks/stripe",
  "/profile/branding",
  "/nothing/here",
  "/_root",
];

describe("the body limit is the limit of the route Remix serves", () => {
  test("for any spelling of any path, the route found is the one whose action runs", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PATHS).chain(spelledPath), async (href) => {
        const url = new URL(href);
        const served = await routeRemixRuns(href);
        const found = findRoute(url);
        if (served !== null) expect(found?.id).toBe(served);
        const multipart = new Request(url, {
          method: "POST",
          headers: { "content-type": "multipart/form-data; boundary=x" },
        });
        const expected = served ? (SHAPES[served]?.limit ?? FORM_BODY_LIMIT_BYTES) : null;
        if (expected !== null) expect(policyOf(multipart).limitBytes).toBe(expected);
      }),
      { numRuns: 600 },
    );
  });

  test.each([
    ["http://localhost/webhooks/../login", "routes/_auth+/login"],
    ["http://localhost/webhooks/%2e%2e/login", "routes/_auth+/login"],
    ["http://localhost/upload/%2E%2E/login", "routes/_auth+/login"],
    ["http://localhost/%6Cogin", "routes/_auth+/login"],
    ["http://localhost/login.data", "routes/_auth+/login"],
    ["http://localhost/upload?index", "routes/upload+/index"],
    ["http://localhost/upload.data?index", "routes/upload+/index"],
    ["http://localhost/upload", "routes/upload+/_layout"],
    ["http://localhost/upload/x/check?_data=routes/upload%2B/_layout", "routes/upload+/_layout"],
    ["http://localhost/profile/branding/x/...data", "routes/profile+/branding"],
    ["http://localhost/upload?_data=routes/api%2B/v1.$", null],
    ["http://localhost/api/v1/folders/3/upload", "routes/api+/v1.folders.$folderId.upload"],
    ["http://localhost/api/v1/folders/3/upload/", "routes/api+/v1.folders.$folderId.upload"],
    ["http://localhost/api/v1/folders/3/upload/x", "routes/api+/v1.$"],
    ["http://localhost/api/v1/items/3/add-files", "routes/api+/v1.$"],
  ])("%s is served by %s", async (href, id) => {
    expect(findRoute(new URL(href))?.id ?? null, "found").toBe(id);
    expect(await routeRemixRuns(href), "served").toBe(id);
  });

  test("a declared multipart limit is for multipart bodies only; other bodies are forms", () => {
    const to = (href: string, contentType: string) =>
      policyOf(new Request(href, { method: "POST", headers: { "content-type": contentType } }));
    expect(to("http://localhost/upload?index", "multipart/form-data; boundary=x")).toEqual({
      limitBytes: 53 * MB,
      streamed: true,
      holdsWhole: false,
    });
    expect(to("http://localhost/upload?index", "application/x-www-form-urlencoded")).toEqual({
      limitBytes: FORM_BODY_LIMIT_BYTES,
      streamed: false,
      holdsWhole: true,
    });
    expect(to("http://localhost/upload?index", "text/plain; multipart/form-data")).toEqual({
      limitBytes: FORM_BODY_LIMIT_BYTES,
      streamed: false,
      holdsWhole: true,
    });
    expect(to("http://localhost/webhooks/../upload?index", "application/json").limitBytes).toBe(
      FORM_BODY_LIMIT_BYTES,
    );
  });

  test("a route's own words for a body past its limit go with its multipart limit, and only with it", () => {
    const route = {
      id: "routes/folders+/$folderId.add.video",
      module: { bodyLimit: { multipart: 5 * MB, tooLargeMessage: "A video can be up to 200 MB." } },
    };
    expect(bodyPolicyOf(route, "multipart/form-data; boundary=x")).toEqual({
      limitBytes: 5 * MB,
      streamed: true,
      holdsWhole: false,
      tooLargeMessage: "A video can be up to 200 MB.",
    });
    expect(
      bodyPolicyOf(route, "application/x-www-form-urlencoded").tooLargeMessage,
    ).toBeUndefined();
  });
});

/** A pace no test body comes near. */
const unhurried = { clock: bodyClock(1024 * MB), onTooSlow() {} };

describe("bounding a body", () => {
  const keep = new AbortController().signal;
  const meter = () =>
    bodyMeter(
      { limitBytes: MB, streamed: false, holdsWhole: true },
      new MemoryBudget(1024 * MB).open(),
    );
  const post = (body: BodyInit | ReadableStream<Uint8Array>, headers: HeadersInit = {}) =>
    new Request("http://localhost/x", {
      method: "POST",
      body,
      headers,
      duplex: "half",
    } as RequestInit);
  const streamOf = (chunks: number[]) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const size of chunks) controller.enqueue(new Uint8Array(size));
        controller.close();
      },
    });

  test("a declared length over the limit is refused without reading", async () => {
    const request = post(streamOf([10]), { "content-length": "101" });
    expect(
      await boundBody(
        request,
        { limitBytes: 100, streamed: true, holdsWhole: false },
        keep,
        meter(),
        unhurried,
      ),
    ).toEqual({
      kind: "too-large",
    });
    expect(request.bodyUsed).toBe(false);
  });

  test("a form without a length is read up to the limit, and refused past it", async () => {
    const within = await boundBody(
      post(streamOf([50, 50])),
      { limitBytes: 100, streamed: false, holdsWhole: true },
      keep,
      meter(),
      unhurried,
    );
    expect(within.kind === "read" && (await within.request.arrayBuffer()).byteLength).toBe(100);
    expect(
      await boundBody(
        post(streamOf([50, 51])),
        { limitBytes: 100, streamed: false, holdsWhole: true },
        keep,
        meter(),
        unhurried,
      ),
    ).toEqual({
      kind: "too-large",
    });
  });

  test("a streamed body passes on until the limit, then ends with BodyTooLargeError", async () => {
    const verdict = await boundBody(
      post(streamOf([60, 60])),
      { limitBytes: 100, streamed: true, holdsWhole: false },
      keep,
      meter(),
      unhurried,
    );
    if (verdict.kind !== "read") throw new Error("expected the body to be passed on");
    const error = await verdict.request.arrayBuffer().catch((caught: unknown) => caught);
    expect(isBodyTooLarge(error)).toBe(true);
    expect(isBodyTooLarge(new Error("other", { cause: new BodyTooLargeError(1) }))).toBe(true);
    expect(isBodyTooLarge(new Error("other"))).toBe(false);
  });

  test("past the limit, or once answered, the rest of a streamed body is left unread, never cancelled", async () => {
    let cancelled = false;
    let pulls = 0;
    const endless = () =>
      new ReadableStream<Uint8Array>({
        pull(controller) {
          pulls += 1;
          controller.enqueue(new Uint8Array(60));
        },
        cancel() {
          cancelled = true;
        },
      });
    const settle = () => new Promise((resolve) => setTimeout(resolve, 10));
    const verdict = await boundBody(
      post(endless()),
      { limitBytes: 100, streamed: true, holdsWhole: false },
      keep,
      meter(),
      unhurried,
    );
    if (verdict.kind !== "read") throw new Error("expected the body to be passed on");
    await verdict.request.arrayBuffer().catch(() => {});
    await settle();
    const pullsAtLimit = pulls;
    await settle();
    expect(pulls).toBe(pullsAtLimit);

    const answered = new AbortController();
    await boundBody(
      post(endless()),
      { limitBytes: 1_000_000, streamed: true, holdsWhole: false },
      answered.signal,
      meter(),
      unhurried,
    );
    answered.abort();
    await settle();
    const pullsWhenAnswered = pulls;
    await settle();
    expect(pulls).toBe(pullsWhenAnswered);
    expect(cancelled).toBe(false);
  });
});

describe("what a body holds of the memory budget", () => {
  const whole = { limitBytes: 1000, streamed: false, holdsWhole: true };
  const upload = { limitBytes: 50 * MB, streamed: true, holdsWhole: false };

  test("a form is charged its bytes as they arrive and its parse once whole; a route's whole body a multiple as it arrives; a streamed upload its working set at most", async () => {
    const budget = new MemoryBudget(1024 * MB);
    const read = bodyMeter(whole, budget.open());
    await read.charge(100);
    await read.charge(50);
    // Only what is buffered while it arrives; its parse once it is whole.
    expect(budget.usedBytes).toBe(150);
    await read.chargeParse();
    expect(budget.usedBytes).toBe(WHOLE_BODY_HOLD_FACTOR * 150);
    read.release();
    const webhook = bodyMeter({ limitBytes: MB, streamed: true, holdsWhole: true }, budget.open());
    await webhook.charge(100);
    expect(budget.usedBytes).toBe(WHOLE_BODY_HOLD_FACTOR * 100);
    webhook.release();
    const streamed = bodyMeter(upload, budget.open());
    for (let sent = 0; sent < 40 * MB; sent += 64 * 1024) await streamed.charge(64 * 1024);
    expect(budget.usedBytes).toBe(STREAMED_FORM_WORKING_SET_BYTES);
    streamed.release();
    expect(budget.usedBytes).toBe(0);
  });

  test("a form is refused as busy when the budget has no room in time, and holds nothing after", async () => {
    const budget = new MemoryBudget(WHOLE_BODY_HOLD_FACTOR * 100);
    const holder = budget.tryReserve(WHOLE_BODY_HOLD_FACTOR * 90)!;
    const post = new Request("http://localhost/x", { method: "POST", body: "a".repeat(20) });
    const spent = bodyMeter(whole, budget.open());
    expect(await boundBody(post, whole, new AbortController().signal, spent, unhurried)).toEqual({
      kind: "busy",
    });
    spent.release();
    holder.release();
    expect(budget.usedBytes).toBe(0);
  }, 10_000);

  test("a streamed body ends with MemoryBudgetSpentError when no room comes in time", async () => {
    const budget = new MemoryBudget(STREAMED_FORM_WORKING_SET_BYTES);
    const holder = budget.tryReserve(STREAMED_FORM_WORKING_SET_BYTES)!;
    const post = new Request("http://localhost/x", {
      method: "POST",
      body: new Uint8Array(1000),
      headers: { "content-type": "multipart/form-data; boundary=x" },
    });
    const verdict = await boundBody(
      post,
      upload,
      new AbortController().signal,
      bodyMeter(upload, budget.open()),
      unhurried,
    );
    if (verdict.kind !== "read") throw new Error("expected the body to be passed on");
    const error = await verdict.request.arrayBuffer().catch((caught: unknown) => caught);
    expect(isMemoryBudgetSpent(error)).toBe(true);
    holder.release();
  }, 10_000);
});

describe("how long a body may take to arrive", () => {
  test("a grace, then time earned by the bytes that came, never past the whole deadline of the route's limit", () => {
    const pace = BODY_PACE;
    expect(bodyAllowanceMs(64 * 1024, 0, pace)).toBe(pace.graceMs);
    expect(bodyAllowanceMs(64 * 1024, 64 * 1024, pace)).toBe(
      Math.min(
        pace.graceMs + (1000 * 64 * 1024) / pace.minBytesPerSecond,
        pace.wholeGraceMs + (1000 * 64 * 1024) / pace.wholeBytesPerSecond,
      ),
    );
    // A route's limit sets its whole deadline: an upload's is longer than a form's.
    expect(bodyAllowanceMs(51 * MB, 51 * MB, pace)).toBeGreaterThan(
      bodyAllowanceMs(64 * 1024, 64 * 1024, pace),
    );
    fc.assert(
      fc.property(fc.nat(100 * MB), fc.nat(100 * MB), fc.nat(100 * MB), (limit, a, b) => {
        const [less, more] = a < b ? [a, b] : [b, a];
        const whole = pace.wholeGraceMs + (1000 * limit) / pace.wholeBytesPerSecond;
        expect(bodyAllowanceMs(limit, less, pace)).toBeLessThanOrEqual(
          bodyAllowanceMs(limit, more, pace),
        );
        expect(bodyAllowanceMs(limit, more, pace)).toBeLessThanOrEqual(whole);
      }),
    );
  });

  const quick = {
    graceMs: 100,
    minBytesPerSecond: 1000,
    wholeGraceMs: 10_000,
    wholeBytesPerSecond: 1,
  };
  /** Sends `first` at once, then nothing more, ever: a client that stopped one byte short. */
  const stalled = (first: number) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(first));
      },
    });
  const post = (body: ReadableStream<Uint8Array>, contentType?: string) =>
    new Request("http://localhost/x", {
      method: "POST",
      body,
      duplex: "half",
      headers: contentType ? { "content-type": contentType } : {},
    } as RequestInit);

  test("a form that stops short is too slow once its waiting is used up: the grace and what its bytes earned", async () => {
    const form = { limitBytes: 1000, streamed: false, holdsWhole: true };
    const started = performance.now();
    const verdict = await boundBody(
      post(stalled(100)),
      form,
      new AbortController().signal,
      bodyMeter(form, new MemoryBudget(MB).open()),
      { clock: bodyClock(form.limitBytes, quick), onTooSlow() {} },
    );
    expect(verdict).toEqual({ kind: "too-slow" });
    // 100 ms of grace, and 100 ms earned by 100 bytes at 1000 a second.
    expect(performance.now() - started).toBeGreaterThanOrEqual(195);
  });

  test("a streamed body that stops short is answered by the server and ends with BodyTooSlowError for the app", async () => {
    const upload = { limitBytes: MB, streamed: true, holdsWhole: false };
    let answeredTooSlow = 0;
    const verdict = await boundBody(
      post(stalled(10), "multipart/form-data; boundary=x"),
      upload,
      new AbortController().signal,
      bodyMeter(upload, new MemoryBudget(MB).open()),
      { clock: bodyClock(upload.limitBytes, quick), onTooSlow: () => answeredTooSlow++ },
    );
    if (verdict.kind !== "read") throw new Error("expected the body to be passed on");
    const error = await verdict.request.arrayBuffer().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BodyTooSlowError);
    expect(answeredTooSlow).toBe(1);
  });

  test("only the time spent waiting for the client counts: a reader that pauses uses none of it", async () => {
    const clock = bodyClock(MB, quick);
    const chunks = [10, 10, 10];
    const reader = new ReadableStream<Uint8Array>({
      pull(controller) {
        const size = chunks.shift();
        if (size === undefined) controller.close();
        else controller.enqueue(new Uint8Array(size));
      },
    }).getReader();
    for (;;) {
      // The app is busy for longer than the grace between reads: the client is not slow.
      await new Promise((resolve) => setTimeout(resolve, 150));
      const { done } = await clock.read(reader);
      if (done) break;
    }
  });
});

describe("a connection closed after its answer", () => {
  test("reads nothing more of the body it refused: the sender is held back by TCP", async () => {
    const readAfterTheAnswer = new Promise<number>((resolve) => {
      const server = http.createServer((request, response) => {
        // As server/index.ts does: the body becomes the Remix request's stream, then the verdict.
        createReadableStreamFromReadable(request);
        response.once("finish", () => {
          const atTheAnswer = request.socket.bytesRead;
          setTimeout(() => {
            resolve(request.socket.bytesRead - atTheAnswer);
            server.closeAllConnections();
            server.close();
          }, 1_000);
        });
        refuseTooLarge(request, response, {});
      });
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo;
        const sender = net.connect(port, "127.0.0.1", () => {
          sender.write(`POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: ${40 * MB}\r\n\r\n`);
          const chunk = Buffer.alloc(64 * 1024, "a");
          const pump = () => {
            while (!sender.destroyed && sender.write(chunk));
            if (!sender.destroyed) sender.once("drain", pump);
          };
          pump();
        });
        sender.on("error", () => {});
      });
    });
    // Left reading, the socket took about 100 KB more, into buffers held while it lingered.
    expect(await readAfterTheAnswer).toBe(0);
  });
});
