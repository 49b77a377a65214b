import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  createReadableStreamFromReadable,
  createRequestHandler,
  type ServerBuild,
} from "@remix-run/node";
import { afterAll, describe, expect, test, vi } from "vitest";
import { crossSiteGate } from "./cross-site";
import type { ExpressRequest } from "./router-url";

/**
 * The gate in front of Remix's own request handler, over a few routes of the
 * app's shapes: a page with an action, a page and a resource route that
 * declare `crossSitePosts`, a resource route that does not. Which action ran
 * is recorded by the actions themselves.
 */
const Component = () => null;
const ran: string[] = [];
const routes: Record<string, object> = {
  root: { id: "root", path: "", module: { default: Component } },
  login: { id: "login", path: "login", parentId: "root", module: { default: Component } },
  unsubscribe: {
    id: "unsubscribe",
    path: "unsubscribe",
    parentId: "root",
    module: { default: Component, crossSitePosts: "one-click" },
  },
  api: { id: "api", path: "api/v1/*", parentId: "root", module: { crossSitePosts: "bearer" } },
  share: { id: "share", path: "add/share", parentId: "root", module: {} },
};
for (const [id, route] of Object.entries(routes)) {
  Object.assign((route as { module: object }).module, {
    action: () => {
      ran.push(id);
      return new Response("done");
    },
  });
}
const build = {
  mode: "production",
  entry: {
    module: { default: () => new Response("document"), appOrigin: "https://thoughtfully.example" },
  },
  routes,
  assets: { routes: {}, entry: { imports: [], module: "" }, url: "", version: "1" },
  publicPath: "/build/",
  assetsBuildDirectory: "public/build",
  future: { v3_singleFetch: true, v3_relativeSplatPath: true, v3_throwAbortReason: true },
  isSpaMode: false,
} as unknown as ServerBuild;

const gate = crossSiteGate(build);
const handle = createRequestHandler(build, "test");
const server = http.createServer((request, response) => {
  Object.assign(request, { protocol: "http", hostname: "127.0.0.1", originalUrl: request.url });
  gate(request as ExpressRequest, response, async () => {
    const remixRequest = new Request(`http://${request.headers.host}${request.url}`, {
      method: request.method,
      headers: request.headers as Record<string, string>,
      body: createReadableStreamFromReadable(request),
      duplex: "half",
    } as RequestInit);
    const answer = await handle(remixRequest);
    response.writeHead(answer.status, { "Content-Type": "text/plain" }).end(await answer.text());
  });
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
afterAll(() => {
  server.close();
});

async function post(target: string, headers: Record<string, string>) {
  ran.length = 0;
  vi.spyOn(console, "log").mockImplementation(() => {});
  const response = await fetch(`${base}${target}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body: "List-Unsubscribe=One-Click",
  });
  return { status: response.status, type: response.headers.get("content-type"), ran: [...ran] };
}

describe("crossSiteGate", () => {
  test("another site's post to a route that does not declare it is refused before any action runs", async () => {
    for (const target of ["/login", "/login.data", "/add/share", "/unsubscribe/../login"]) {
      const crossSite: Record<string, string>[] = [
        { Origin: "null" },
        { "Sec-Fetch-Site": "cross-site" },
      ];
      for (const headers of crossSite) {
        expect(await post(target, headers), target).toEqual({
          status: 403,
          type: "text/plain; charset=utf-8",
          ran: [],
        });
      }
    }
    expect((await post("/login", { Origin: "null", Accept: "text/html" })).type).toBe(
      "text/html; charset=utf-8",
    );
  });

  test("a route that declares it takes it, and Remix's own Origin check never trips on it", async () => {
    for (const target of ["/unsubscribe", "/unsubscribe.data", "/api/v1/items"]) {
      for (const origin of ["null", "https://mail.google.com", "chrome-extension://abc"]) {
        const answer = await post(target, { Origin: origin });
        expect(answer.ran, `${target} ${origin}`).toEqual([target.split(/[/.]/)[1]]);
        expect(answer.status).toBeLessThan(400);
      }
    }
  });

  test("our own posts go through, APP_URL's origin or the one they were sent to", async () => {
    expect((await post("/login", { Origin: "https://thoughtfully.example" })).ran).toEqual([
      "login",
    ]);
    expect((await post("/login.data", { Origin: base })).ran).toEqual(["login"]);
    expect((await post("/add/share", { Origin: "null", "Sec-Fetch-Site": "none" })).ran).toEqual([
      "share",
    ]);
  });
});
