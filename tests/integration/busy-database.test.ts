import { eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { createUser } from "#db/factories";
import { folders } from "#db/schema";
import { csrfTokenIn } from "../support/body-attacks";
import { startBuiltServer, thisFilesDataDir } from "../support/integration";
import { holdWriteLock } from "../support/lock-holder";

/**
 * The production server (server/index.ts) while another process holds
 * SQLite's write lock (tests/support/lock-holder.ts), as `npm run send:due`,
 * a backup or an operator's `sqlite3` may: a write waits a few tens of ms,
 * then a form post is answered 503 with Retry-After and the form as it was
 * typed, an API write a JSON 503 with Retry-After; /healthz (a read) answers
 * at once meanwhile, and no write holds up the server for long
 * (docs/decisions/0246-a-busy-database-is-a-503-quickly.md). Needs `npm run build` first.
 */
const server = await startBuiltServer({}, { dataDir: thisFilesDataDir() });
const { base } = server;
const databasePath = process.env.DATABASE_PATH!;

const { db } = await import("~/platform/db.server");
const { createSession } = await import("~/modules/auth/session.server");
const { createApiToken } = await import("~/modules/api/api-tokens.server");

/**
 * On a quiet machine /healthz takes a few ms and a busy answer REQUEST_LOCK_WAIT_MS (250 ms) and
 * a page's render, all well within 400 ms. The bounds leave room for a shared two-core machine
 * under load (a load of 40 made a probe take 1.3 s), and stay far under the 5 s every blocked
 * write held the whole server for before (docs/decisions/0246-a-busy-database-is-a-503-quickly.md).
 */
const BOUNDS = { healthzMs: 1_000, busyAnswerMs: 2_000, probeMs: 2_000 };

async function signedIn() {
  const user = createUser(db);
  const setCookie = await createSession(user.id, new Request("http://localhost/"), "password");
  const cookie = setCookie.split(";")[0]!;
  const page = await fetch(`${base}/folders/new`, { headers: { Cookie: cookie } });
  expect(page.status).toBe(200);
  const html = await page.text();
  const oneTimeKey = /name="oneTimeKey" value="([^"]+)"/.exec(html)?.[1];
  return { user, cookie, csrf: csrfTokenIn(html), oneTimeKey: oneTimeKey ?? "" };
}

type Visitor = Awaited<ReturnType<typeof signedIn>>;

const FOLDER_NAME = "Letters for Grandma";

/** A plain form's post, or (`road` "/folders/new.data") the one the page's JavaScript makes. */
function postNewFolder(visitor: Visitor, road = "/folders/new") {
  return timed(() =>
    fetch(`${base}${road}`, {
      method: "POST",
      redirect: "manual",
      headers: {
        Cookie: visitor.cookie,
        Origin: base,
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({
        csrf: visitor.csrf,
        oneTimeKey: visitor.oneTimeKey,
        name: FOLDER_NAME,
        "recipients[0].name": "Grandma",
        "recipients[0].email": "grandma@example.com",
        frequency: "weekly",
        dayOfWeek: "1",
      }),
    }),
  );
}

function postApiFolder(token: string) {
  return timed(() =>
    fetch(`${base}/api/v1/folders`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        name: "By the API",
        recipients: [{ name: "Mum", email: "mum@example.com" }],
        frequency: "weekly",
        dayOfWeek: 1,
      }),
    }),
  );
}

async function timed(send: () => Promise<Response>) {
  const started = performance.now();
  const response = await send();
  const text = await response.text();
  return { response, text, ms: performance.now() - started };
}

const healthz = () => timed(() => fetch(`${base}/healthz`));

/** /healthz every 25 ms until stopped: each answer's time, as a second client sees the server. */
function probeHealthz() {
  const times: number[] = [];
  let running = true;
  const probing = (async () => {
    while (running) {
      const check = await healthz();
      expect(check.response.status).toBe(200);
      times.push(check.ms);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();
  return async () => {
    running = false;
    await probing;
    return times;
  };
}

function foldersNamed(userId: number) {
  return db.select().from(folders).where(eq(folders.userId, userId)).all();
}

describe("while another process holds the write lock", () => {
  test("a form post is a 503 with Retry-After at once, the form as it was typed, nothing saved", async () => {
    const visitor = await signedIn();
    const lock = await holdWriteLock(databasePath, 20_000);
    try {
      const busy = await postNewFolder(visitor);
      expect(busy.response.status).toBe(503);
      expect(Number(busy.response.headers.get("Retry-After"))).toBeGreaterThan(0);
      expect(busy.ms).toBeLessThan(BOUNDS.busyAnswerMs);
      expect(busy.text).toContain("Busy for a moment: try again");
      // The form comes back as typed, to send again to where it went, with its token.
      expect(busy.text).toContain(`value="${FOLDER_NAME}"`);
      expect(busy.text).toContain('value="grandma@example.com"');
      expect(busy.text).toContain('action="/folders/new"');
      expect(csrfTokenIn(busy.text)).toBe(visitor.csrf);
      // With JavaScript, the same answer reaches the page (its boundary shows the same form).
      const script = await postNewFolder(visitor, "/folders/new.data");
      expect(script.response.status).toBe(503);
      expect(Number(script.response.headers.get("Retry-After"))).toBeGreaterThan(0);
      expect(script.text).toContain("database-busy");
      expect(script.text).toContain(FOLDER_NAME);
    } finally {
      await lock.release();
    }
    expect(foldersNamed(visitor.user.id)).toEqual([]);
    // Once the lock is let go, the same post goes through.
    const saved = await postNewFolder(visitor);
    expect(saved.response.status).toBe(302);
    expect(foldersNamed(visitor.user.id).map((folder) => folder.name)).toEqual([FOLDER_NAME]);
  });

  test("an API write is a JSON 503 with Retry-After at once", async () => {
    const user = createUser(db);
    const { token } = createApiToken(user.id, { name: "script", scope: "write" });
    const lock = await holdWriteLock(databasePath, 20_000);
    try {
      const busy = await postApiFolder(token);
      expect(busy.response.status).toBe(503);
      expect(Number(busy.response.headers.get("Retry-After"))).toBeGreaterThan(0);
      expect(busy.ms).toBeLessThan(BOUNDS.busyAnswerMs);
      expect(JSON.parse(busy.text)).toMatchObject({ error: { code: "busy" } });
    } finally {
      await lock.release();
    }
    expect(foldersNamed(user.id)).toEqual([]);
  });

  test("/healthz answers at once, and writes one after another never hold the server up for long", async () => {
    const visitor = await signedIn();
    const user = createUser(db);
    const { token } = createApiToken(user.id, { name: "script", scope: "write" });
    const lock = await holdWriteLock(databasePath, 20_000);
    try {
      const alone = await healthz();
      expect(alone.response.status).toBe(200);
      expect(alone.ms).toBeLessThan(BOUNDS.healthzMs);
      const stopProbe = probeHealthz();
      const answers: number[] = [];
      for (let round = 0; round < 4; round++) {
        answers.push((await postNewFolder(visitor)).response.status);
        answers.push((await postApiFolder(token)).response.status);
      }
      // Two writes at once: each waits its short while, one after the other.
      const both = await Promise.all([postNewFolder(visitor), postApiFolder(token), healthz()]);
      answers.push(both[0].response.status, both[1].response.status);
      expect(both[2].ms).toBeLessThan(BOUNDS.probeMs);
      const times = await stopProbe();
      expect(answers.every((status) => status === 503)).toBe(true);
      expect(times.length).toBeGreaterThan(3);
      expect(Math.max(...times)).toBeLessThan(BOUNDS.probeMs);
    } finally {
      await lock.release();
    }
  });
});
