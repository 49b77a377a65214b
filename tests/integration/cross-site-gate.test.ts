import http from "node:http";
import net from "node:net";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { folderRecipientStates, folders, uploadDrafts } from "#db/schema";
import { csrfTokenIn } from "../support/body-attacks";
import { startBuiltServer, thisFilesDataDir, waitUntil } from "../support/integration";

/**
 * The production server (server/index.ts) on this test file's database, posted
 * to as mail apps, other sites' pages, our own pages and the phone's share sheet
 * do (docs/decisions/0239-one-cross-site-gate.md): a one-click unsubscribe is
 * taken whatever Origin its mail app sends; any other post another site's page
 * makes is refused with a 403 and a plain page, never Remix's bare 500, and
 * changes nothing; our own posts go through by every road (a plain form, single
 * fetch, `?_data`, `?index`); a client that goes away mid-body is one log line.
 * Needs `npm run build` first.
 */
const server = await startBuiltServer({}, { dataDir: thisFilesDataDir() });
const { base } = server;
const ours = new URL(base).origin;
const port = Number(new URL(base).port);
let output = "";
server.child.stdout?.on("data", (chunk) => {
  output += chunk;
});
server.child.stderr?.on("data", (chunk) => {
  output += chunk;
});

const { db } = await import("~/platform/db.server");
const { createSession } = await import("~/modules/auth/session.server");
const { unsubscribeUrl } = await import("~/modules/recipients/recipient-links.server");

type Answer = { status: number; type: string; text: string; location?: string };

/** A request with exactly these headers (fetch would set its own Origin and Sec-Fetch-*). */
function send(
  method: string,
  target: string,
  headers: http.OutgoingHttpHeaders,
  body: string | Buffer = "",
) {
  return new Promise<Answer>((resolve, reject) => {
    const request = http.request(`${base}${target}`, {
      method,
      headers: { "Content-Length": Buffer.byteLength(body), ...headers },
    });
    request.on("response", (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (part: string) => {
        text += part;
      });
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          type: String(response.headers["content-type"] ?? ""),
          text,
          location: response.headers.location,
        }),
      );
    });
    request.on("error", reject);
    request.end(body);
  });
}

const FORM = "application/x-www-form-urlencoded";

async function signedIn() {
  const user = createUser(db);
  const setCookie = await createSession(user.id, new Request("http://localhost/"), "password");
  return { user, cookie: setCookie.split(";")[0]! };
}

/** The Origin header spelled every way that is not exactly ours, and the bare null. */
const FOREIGN_ORIGINS = [
  "null",
  "https://mail.google.com",
  "https://evil.example",
  `https://127.0.0.1:${port}`,
  `http://127.0.0.1:${port + 1}`,
  "http://127.0.0.1",
  `HTTP://127.0.0.1:${port}`,
  `http://127.0.0.1.:${port}`,
  `http://127.0.0.1:${port}/`,
  `http://localhost:${port}`,
  `http://[::ffff:127.0.0.1]:${port}`,
  `http://2130706433:${port}`,
  `http://127.0.0.1:${port}@evil.example`,
  "chrome-extension://abcdefghijklmnop",
  "not an origin",
  "",
];

/** How another site's page may say where it is: an Origin, or (an older browser) only Sec-Fetch-Site. */
const CROSS_SITE_HEADERS: http.OutgoingHttpHeaders[] = [
  ...FOREIGN_ORIGINS.map((origin) => ({ Origin: origin })),
  { Origin: ["null", ours] },
  { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" },
  { Origin: "null", "Sec-Fetch-Site": "cross-site" },
  { "Sec-Fetch-Site": "cross-site" },
  { "Sec-Fetch-Site": "same-site" },
];

describe("RFC 8058 one-click unsubscribe", () => {
  test("is taken with Origin: null, a mail provider's origin or none: the recipient is unsubscribed", async () => {
    const owner = createUser(db);
    const senders = [
      { Origin: "null" },
      { Origin: "https://mail.google.com" },
      {},
      { Origin: "https://mail.yahoo.com", "Sec-Fetch-Site": "cross-site" },
    ];
    const recipients = senders.map((_, index) => ({
      name: `Reader ${index}`,
      email: `reader${index}@example.com`,
    }));
    const folder = createFolder(db, owner.id, { recipients });
    const answers: string[] = [];
    for (const [index, headers] of senders.entries()) {
      // The address the newsletter's List-Unsubscribe carries, posted as Gmail and Yahoo post it.
      const link = new URL(unsubscribeUrl(folder.id, recipients[index]!.email));
      const answer = await send(
        "POST",
        `${link.pathname}${link.search}`,
        { ...headers, "Content-Type": FORM },
        "List-Unsubscribe=One-Click",
      );
      answers.push(`${JSON.stringify(headers)} ${answer.status} ${answer.text}`);
    }
    expect(answers).toEqual(senders.map((headers) => `${JSON.stringify(headers)} 200 `));
    const states = db
      .select({ email: folderRecipientStates.email, status: folderRecipientStates.status })
      .from(folderRecipientStates)
      .where(eq(folderRecipientStates.folderId, folder.id))
      .all();
    expect(states.sort((a, b) => a.email.localeCompare(b.email))).toEqual(
      recipients.map(({ email }) => ({ email, status: "unsubscribed" })),
    );
  });
});

describe("a post from another site's page", () => {
  test("to a page, however its Origin is spelled and by whichever road: 403 with a plain page, never 500, and nothing changes", async () => {
    const { user, cookie } = await signedIn();
    const folder = createFolder(db, user.id, { name: "Kept" });
    const page = await send("GET", `/folders/${folder.id}/delete`, { Cookie: cookie });
    const csrf = csrfTokenIn(page.text);
    const roads = [
      `/folders/${folder.id}/delete`,
      `/folders/${folder.id}/delete.data`,
      `/folders/${folder.id}/delete?_data=${encodeURIComponent("routes/folders+/$folderId.delete")}`,
      "/login",
    ];
    const unexpected: string[] = [];
    for (const road of roads) {
      for (const headers of CROSS_SITE_HEADERS) {
        for (const accept of ["text/html,application/xhtml+xml", "*/*"]) {
          const answer = await send(
            "POST",
            road,
            { ...headers, Accept: accept, Cookie: cookie, "Content-Type": FORM },
            new URLSearchParams({ csrf, email: user.email, password: "password" }).toString(),
          );
          const forBrowser = accept.startsWith("text/html");
          const refused =
            answer.status === 403 &&
            answer.type.startsWith(forBrowser ? "text/html" : "text/plain") &&
            answer.text.includes(
              "This form was sent from another website, so nothing was changed.",
            );
          if (!refused) unexpected.push(`${road} ${JSON.stringify(headers)}: ${answer.status}`);
        }
      }
    }
    expect(unexpected).toEqual([]);
    expect(db.select().from(folders).where(eq(folders.id, folder.id)).get()?.name).toBe("Kept");
  });

  test("to the share target: refused by a foreign Origin or Sec-Fetch-Site, taken from the share sheet and our own page", async () => {
    const { user, cookie } = await signedIn();
    createFolder(db, user.id, { name: "Photos" });
    const photo = await sharp({
      create: { width: 16, height: 16, channels: 3, background: "#3a7" },
    })
      .jpeg()
      .toBuffer();
    const share = new FormData();
    share.set("title", "Garden");
    share.set("files", new File([new Uint8Array(photo)], "IMG_1.jpg", { type: "image/jpeg" }));
    const encoded = new Request("http://localhost/", { method: "POST", body: share });
    const body = Buffer.from(await encoded.arrayBuffer());
    const contentType = encoded.headers.get("content-type")!;
    const draftsOf = () =>
      db.select().from(uploadDrafts).where(eq(uploadDrafts.userId, user.id)).all().length;

    const post = (headers: http.OutgoingHttpHeaders) =>
      send("POST", "/add/share", { ...headers, Cookie: cookie, "Content-Type": contentType }, body);
    const refusedBy: string[] = [];
    for (const headers of [
      { Origin: "https://evil.example" },
      { Origin: "null" },
      { "Sec-Fetch-Site": "cross-site" },
      { "Sec-Fetch-Site": "same-site" },
    ]) {
      const answer = await post(headers);
      refusedBy.push(`${JSON.stringify(headers)} ${answer.status}`);
    }
    expect(refusedBy).toEqual([
      '{"Origin":"https://evil.example"} 403',
      '{"Origin":"null"} 403',
      '{"Sec-Fetch-Site":"cross-site"} 403',
      '{"Sec-Fetch-Site":"same-site"} 403',
    ]);
    expect(draftsOf()).toBe(0);

    // The installed app's share sheet: a navigation the browser starts itself, of no page's origin.
    const fromSheet = await post({ "Sec-Fetch-Site": "none", Origin: "null" });
    expect(fromSheet.status).toBe(303);
    expect(fromSheet.location).toMatch(/^\/add\/shared\//);
    const fromOurPage = await post({ "Sec-Fetch-Site": "same-origin", Origin: ours });
    expect(fromOurPage.status).toBe(303);
    expect(draftsOf()).toBe(2);
  });
});

describe("a post from our own page", () => {
  test("goes through as a form without JavaScript, by single fetch, by ?_data and to an ?index route", async () => {
    const { user, cookie } = await signedIn();
    const roads = [
      (id: number) => ({ target: `/folders/${id}/delete`, accept: "text/html" }),
      (id: number) => ({ target: `/folders/${id}/delete.data`, accept: "*/*" }),
      (id: number) => ({
        target: `/folders/${id}/delete?_data=${encodeURIComponent("routes/folders+/$folderId.delete")}`,
        accept: "*/*",
      }),
    ];
    const outcomes: string[] = [];
    for (const road of roads) {
      for (const headers of [
        { Origin: ours, "Sec-Fetch-Site": "same-origin" },
        { Origin: ours },
        { "Sec-Fetch-Site": "same-origin" },
        // Our own page under Referrer-Policy: no-referrer, vouched for by the browser.
        { Origin: "null", "Sec-Fetch-Site": "same-origin" },
      ]) {
        const folder = createFolder(db, user.id, { name: "Going" });
        const page = await send("GET", `/folders/${folder.id}/delete`, { Cookie: cookie });
        const { target, accept } = road(folder.id);
        const answer = await send(
          "POST",
          target,
          { ...headers, Accept: accept, Cookie: cookie, "Content-Type": FORM },
          new URLSearchParams({ csrf: csrfTokenIn(page.text) }).toString(),
        );
        const gone = !db.select().from(folders).where(eq(folders.id, folder.id)).get();
        outcomes.push(
          `${target.replace(/\d+/, "N")} ${JSON.stringify(headers)} ${answer.status} ${gone}`,
        );
      }
    }
    expect(outcomes.filter((outcome) => !outcome.endsWith(" true"))).toEqual([]);

    // An index route's action (`?index`): the upload wizard, answered by the app (no file: 400), not refused.
    const wizard = await send("GET", "/upload", { Cookie: cookie });
    const upload = await send(
      "POST",
      "/upload?index",
      {
        Origin: ours,
        "Sec-Fetch-Site": "same-origin",
        Cookie: cookie,
        "Content-Type": FORM,
      },
      new URLSearchParams({ csrf: csrfTokenIn(wizard.text) }).toString(),
    );
    expect(upload.text).not.toContain("sent from another website");
    expect([400, 413, 415]).toContain(upload.status);
  });
});

describe("a client that goes away mid-body", () => {
  test("is one line of the log, no stack trace, whatever was reading its body", async () => {
    const { cookie } = await signedIn();
    // From the line of a request answered now on: earlier tests' lines are all written by then.
    await send("GET", "/drops-start", {});
    await waitUntil(() => output.includes("GET /drops-start"), 10_000, "the first line");
    const before = output.indexOf("\n", output.indexOf("GET /drops-start")) + 1;
    const drops = [
      { target: "/login", type: FORM },
      { target: "/webhooks/postmark", type: "application/json" },
      { target: "/add/share", type: "multipart/form-data; boundary=x" },
    ];
    for (const { target, type } of drops) {
      const socket = net.connect(port, "127.0.0.1");
      socket.on("error", () => {});
      // "100 Continue" says the server has handed the request on and waits for its body.
      const handedOn = new Promise((resolve) => socket.once("data", resolve));
      socket.write(
        `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nCookie: ${cookie}\r\n` +
          `Content-Type: ${type}\r\nContent-Length: 60000\r\nExpect: 100-continue\r\n\r\n`,
      );
      await handedOn;
      socket.write("a".repeat(1000));
      socket.destroy();
      await waitUntil(
        () => output.slice(before).includes(`POST ${target} - - - `),
        10_000,
        `the log line of ${target}`,
      );
    }
    // Anything more the server wrote for them came before the line of a request answered after.
    await send("GET", "/healthz", {});
    await waitUntil(() => output.slice(before).includes("GET /healthz"), 10_000, "the next line");
    expect(output.slice(before).split("\n").filter(Boolean)).toEqual([
      ...drops.map(({ target }) =>
        expect.stringMatching(
          new RegExp(`^POST ${target} - - - [\\d.]+ ms \\(client went away\\)$`),
        ),
      ),
      expect.stringMatching(/^GET \/healthz 200 /),
    ]);
  });
});
