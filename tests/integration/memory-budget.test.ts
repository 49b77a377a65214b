import http from "node:http";
import { expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { startBuiltServer, thisFilesDataDir } from "../support/integration";

/**
 * The HTTP door of the memory budget (docs/memory-budget.md), on the
 * production build: what a client sees when its body is refused unread, when
 * the budget is spent, and when a form that is not an upload is posted as a
 * huge multipart body. Needs `npm run build` first.
 */
const MB = 1024 * 1024;

// A 64 MB heap: a budget of a few megabytes (the formula's floor or a quarter of the heap cap),
// which a handful of 1 MB webhook posts fill.
const server = await startBuiltServer(
  {
    NODE_OPTIONS: "--max-old-space-size=64 --max-semi-space-size=16",
    STRIPE_SECRET_KEY: "sk_test_budget",
    STRIPE_PRICE_ID: "price_budget",
    STRIPE_WEBHOOK_SECRET: "whsec_budget",
  },
  { dataDir: thisFilesDataDir() },
);
const { db } = await import("~/platform/db.server");
const { createSession } = await import("~/modules/auth/session.server");

type Answer = { status: number; headers: http.IncomingHttpHeaders; body: string };

function answerOf(request: http.ClientRequest) {
  return new Promise<Answer>((resolve, reject) => {
    request.on("response", (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        body += chunk;
      });
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
    });
    request.on("error", reject);
  });
}

function open(
  path: string,
  headers: http.OutgoingHttpHeaders,
  { agent, from }: { agent?: http.Agent; from?: string } = {},
) {
  const { hostname, port } = new URL(server.base);
  return http.request({ hostname, port, path, method: "POST", headers, agent, localAddress: from });
}

test("a body refused unread closes its connection and says so; a kept-alive connection then carries the next request", async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const tooLarge = open(
    "/login",
    { "Content-Type": "application/x-www-form-urlencoded", "Content-Length": 40 * MB },
    { agent },
  );
  tooLarge.write(Buffer.alloc(64 * 1024, "a"));
  const refused = await answerOf(tooLarge);
  tooLarge.destroy();
  expect(refused.status).toBe(413);
  expect(refused.headers.connection).toBe("close");

  const next = http.get(`${server.base}/healthz`, { agent });
  const healthy = await answerOf(next);
  expect(healthy.status).toBe(200);
  // An idle connection stays open longer than Fly's proxy keeps its own (60 s).
  expect(healthy.headers["keep-alive"]).toBe("timeout=65");
  agent.destroy();
});

test("when the budget is spent, a new body waits, then gets 503 with Retry-After, unread; pages without a body still answer", async () => {
  // Stripe posts are read whole: each almost-complete 1 MB post holds three times that.
  const holding = Array.from({ length: 16 }, () => {
    const request = open("/webhooks/stripe", {
      "Content-Type": "application/json",
      "Content-Length": MB,
      "Stripe-Signature": "t=1,v1=x",
    });
    request.write(Buffer.alloc(MB - 1, "a"));
    return { request, answer: answerOf(request).catch(() => null) };
  });
  const answers = await Promise.all(
    holding.map(({ answer }) =>
      Promise.race([answer, new Promise((resolve) => setTimeout(() => resolve("held"), 4_000))]),
    ),
  );
  const busy = answers.filter(
    (answer): answer is Answer =>
      answer !== null && answer !== "held" && (answer as Answer).status === 503,
  );
  expect(busy.length).toBeGreaterThan(0);
  expect(answers.filter((answer) => answer === "held").length).toBeGreaterThan(0);
  expect(busy[0]!.headers["retry-after"]).toBe("10");
  expect(busy[0]!.headers.connection).toBe("close");
  expect((await fetch(`${server.base}/healthz`)).status).toBe(200);

  for (const { request } of holding) request.destroy();
  // Room again once those are gone: a post is read (and refused for its signature, not as busy).
  const after = await fetch(`${server.base}/webhooks/stripe`, {
    method: "POST",
    headers: { "Stripe-Signature": "t=1,v1=x" },
    body: "{}",
  });
  expect(after.status).toBe(400);
}, 30_000);

test("a link posted as multipart with a 40 MB title is a 413 naming the field, never read whole", async () => {
  const user = createUser(db);
  const folder = createFolder(db, user.id);
  const cookie = (await createSession(user.id, new Request(server.base), "password")).split(
    ";",
  )[0]!;
  const page = await fetch(`${server.base}/folders/${folder.id}/add/link`, {
    headers: { Cookie: cookie },
  }).then((response) => response.text());
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
  expect(csrf).toBeTruthy();

  const boundary = "budget-test-boundary";
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n${csrf}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\n`,
  );
  // From an address of its own: the bodies the test before held from 127.0.0.1 may still fill
  // that client's share until the server next reads their closed sockets.
  const request = open(
    `/folders/${folder.id}/add/link`,
    {
      Cookie: cookie,
      "Content-Type": `multipart/form-data; boundary=${boundary}`,
      "Content-Length": 40 * MB,
    },
    { from: "127.0.0.2" },
  );
  const answer = answerOf(request);
  request.write(head);
  const chunk = Buffer.alloc(64 * 1024, "a");
  let sent = head.length;
  let answered = false;
  void answer.then(() => {
    answered = true;
  });
  while (!answered && sent + chunk.length < 40 * MB) {
    sent += chunk.length;
    if (!request.write(chunk)) {
      await new Promise((resolve) => {
        request.once("drain", resolve);
        void answer.then(resolve, resolve);
      });
    }
  }
  const refused = await answer;
  request.destroy();
  expect(refused.status).toBe(413);
  // The dialog's error page carries the route's message: the field is named.
  expect(refused.body).toMatch(/The field \\*"title\\*" is too long/);
  expect(sent).toBeLessThan(10 * MB);
}, 30_000);
