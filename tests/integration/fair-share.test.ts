import { afterAll, describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { cheapPasswordHash } from "../support/cheap-password-hash";
import { holdSlowBodies } from "../support/greedy-client";
import { type AnswerFrom, cookieFrom, requestFrom } from "../support/http-from";
import { startBuiltServer, thisFilesDataDir, waitUntil } from "../support/integration";
import { PRODUCTION_MEMORY_ENV } from "../support/production-heap";

/**
 * Issue 59, item 1: one address may hold only its fair share of the HTTP
 * door (docs/memory-budget.md, "A fair share per client"). The production
 * build at fly.toml's heap cap (a budget of 76 MiB); the greedy client's
 * sockets come from 127.0.0.2, the fair client's from 127.0.0.1: two
 * addresses, as the server sees sockets. Needs `npm run build` first.
 */
const server = await startBuiltServer(
  { ...PRODUCTION_MEMORY_ENV },
  { dataDir: thisFilesDataDir() },
);
const { db } = await import("~/platform/db.server");
const { createApiToken } = await import("~/modules/api/api-tokens.server");

const GREEDY = "127.0.0.2";
const FAIR = "127.0.0.1";
const PASSWORD = "fair-password-123";
const sender = createUser(db, { passwordHash: cheapPasswordHash(PASSWORD) });
const folder = createFolder(db, sender.id);
const token = createApiToken(sender.id, { name: "fair", scope: "write" }).token;

const send = (
  from: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
) => requestFrom(from, `${server.base}${path}`, { method, headers, body });

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
/** A page's CSRF token; none on a page that is not the form (a refusal, a redirect), and the post then fails visibly. */
const csrfOf = (answer: AnswerFrom) => /name="csrf" value="([^"]+)"/.exec(answer.text)?.[1] ?? "";

/** The fair client signs in through the real form, saves a musing and writes through the API. */
async function fairClientUsesTheApp() {
  const loginPage = await send(FAIR, "GET", "/login");
  const csrfCookie = cookieFrom(loginPage, "thoughtfully_csrf") ?? "";
  const signIn = await send(
    FAIR,
    "POST",
    "/login",
    { Cookie: csrfCookie, "Content-Type": "application/x-www-form-urlencoded" },
    form({ csrf: csrfOf(loginPage), email: sender.email, password: PASSWORD }),
  );
  const session = cookieFrom(signIn, "thoughtfully_session") ?? "";
  const addPath = `/folders/${folder.id}/add/musing`;
  const addPage = await send(FAIR, "GET", addPath, { Cookie: session });
  const save = await send(
    FAIR,
    "POST",
    addPath,
    { Cookie: session, "Content-Type": "application/x-www-form-urlencoded" },
    form({ csrf: csrfOf(addPage), title: "Written meanwhile", note: "As usual." }),
  );
  const apiWrite = await send(
    FAIR,
    "POST",
    `/api/v1/folders/${folder.id}/items`,
    { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    JSON.stringify({ type: "musing", title: "By the API", note: "Hi" }),
  );
  return { signIn, save, apiWrite };
}

describe("600 slow bodies from one address", () => {
  // 600 forms of 64 KiB, each one byte short, and smaller ones to fill what room is left.
  const greedy = holdSlowBodies({
    base: server.base,
    from: GREEDY,
    count: 600,
    path: "/login",
    declaredBytes: 64 * 1024,
  });
  const topUps = [4096, 512, 64].map((declaredBytes) =>
    holdSlowBodies({ base: server.base, from: GREEDY, count: 200, path: "/login", declaredBytes }),
  );
  afterAll(() => {
    for (const sockets of [greedy, ...topUps]) sockets.close();
  });

  test("leave every form open to another address", async () => {
    await waitUntil(
      () => greedy.settled() === 600 && topUps.every((sockets) => sockets.settled() === 200),
      30_000,
      "the greedy client's bodies sent",
    );
    // Those past the share are refused at once, but a busy machine answers them in turn.
    const holding = () => [greedy, ...topUps].reduce((sum, sockets) => sum + sockets.holding(), 0);
    await waitUntil(() => holding() <= 16, 15_000, "the bodies past the share refused").catch(
      () => undefined,
    );
    const fair = await fairClientUsesTheApp();
    expect([fair.signIn.status, fair.save.status, fair.apiWrite.status]).toEqual([302, 302, 201]);
    // The greedy address holds only its share; the rest of its bodies were refused at once.
    expect(holding()).toBeLessThanOrEqual(16);
  }, 60_000);

  test("the bodies it still holds are ended at their deadline: 408, the connection closed", async () => {
    // A 64 KiB form: 10 s of grace and 16 s earned by its bytes (BODY_PACE).
    const all = [greedy, ...topUps];
    await waitUntil(
      () => all.every((sockets) => sockets.holding() === 0),
      45_000,
      "the held bodies ended",
    );
    const statuses = new Set(all.flatMap((sockets) => sockets.answers()));
    expect([...statuses].sort()).toEqual(["408", "503"]);
  }, 60_000);
});
