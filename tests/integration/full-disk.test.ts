import fs from "node:fs";
import { describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { cheapPasswordHash } from "../support/cheap-password-hash";
import { type AnswerFrom, cookieFrom, requestFrom } from "../support/http-from";
import { startBuiltServer, thisFilesDataDir, waitUntil } from "../support/integration";
import { SmallDisk } from "../support/small-disk";

/**
 * Issue 60, item 4: a full disk locks nobody out
 * (docs/decisions/0245-the-disk-keeps-room-for-the-database.md). The
 * production build on a small disk of its own (a 40 MB tmpfs: its database,
 * uploads and outbox), keeping DISK_RESERVE_MB=8 for the database, while
 * another program's file on the same volume takes what the test says. Needs
 * `npm run build` first, and a machine that lets `unshare` make a user and
 * mount namespace (tests/support/small-disk.ts).
 */
const MB = 1024 * 1024;
const KB = 1024;
const RESERVE = 8 * MB;
const REFUSED = "The file could not be saved right now. Please try again later.";

const { db } = await import("~/platform/db.server");
const { createApiToken } = await import("~/modules/api/api-tokens.server");
const PASSWORD = "full-disk-password-1";
const sender = createUser(db, { passwordHash: cheapPasswordHash(PASSWORD) });
const folder = createFolder(db, sender.id);
const token = createApiToken(sender.id, { name: "fill", scope: "write" }).token;
// Seeded: the server takes the database onto its small disk as it is now, whole.
db.$client.close();

const disk = new SmallDisk(thisFilesDataDir(), 40 * MB);
const server = await startBuiltServer(
  { DISK_RESERVE_MB: String(RESERVE / MB) },
  { dataDir: disk.folder, launch: disk.launch },
);
disk.seenBy(server.child.pid!);

const send = (
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string | Buffer,
) => requestFrom("127.0.0.1", `${server.base}${path}`, { method, headers, body });

const csrfOf = (answer: AnswerFrom) => /name="csrf" value="([^"]+)"/.exec(answer.text)?.[1] ?? "";

/** A form as a browser encodes it. */
async function multipart(fields: Record<string, string>, file?: { name: string; bytes: Buffer }) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  if (file) form.set("files", new File([new Uint8Array(file.bytes)], file.name));
  const encoded = new Request("http://localhost/", { method: "POST", body: form });
  return {
    body: Buffer.from(await encoded.arrayBuffer()),
    contentType: encoded.headers.get("content-type")!,
  };
}

/** A PDF as the upload checks see it (its first bytes), of `bytes` in all. */
function pdf(bytes: number) {
  const file = Buffer.alloc(bytes, 0x20);
  file.write("%PDF-1.4\n");
  return file;
}

/** Through the real log-in form; the session's cookie, or null when the log-in failed. */
async function logIn() {
  const page = await send("GET", "/login");
  const answer = await send(
    "POST",
    "/login",
    {
      Cookie: cookieFrom(page, "thoughtfully_csrf") ?? "",
      "Content-Type": "application/x-www-form-urlencoded",
    },
    new URLSearchParams({ csrf: csrfOf(page), email: sender.email, password: PASSWORD }).toString(),
  );
  const session = cookieFrom(answer, "thoughtfully_session");
  return answer.status === 302 && session ? session : null;
}

async function apiUpload(bytes: number, name: string) {
  const { body, contentType } = await multipart({ title: name }, { name, bytes: pdf(bytes) });
  return send(
    "POST",
    `/api/v1/folders/${folder.id}/upload?type=file`,
    { Authorization: `Bearer ${token}`, "Content-Type": contentType },
    body,
  );
}

async function itemsInFolder() {
  const answer = await send("GET", `/api/v1/folders/${folder.id}?limit=50`, {
    Authorization: `Bearer ${token}`,
  });
  expect(answer.status).toBe(200);
  return (JSON.parse(answer.text) as { items: { id: number; title: string }[] }).items;
}

/** Logs in, deletes the folder's first item through its Delete button's form; whether it went. */
async function logInAndDeleteAnItem() {
  const session = await logIn();
  expect(session, "logged in").not.toBeNull();
  const [item] = await itemsInFolder();
  const page = await send("GET", `/folders/${folder.id}`, { Cookie: session! });
  const answer = await send(
    "POST",
    `/folders/${folder.id}/item-actions?itemId=${item!.id}`,
    { Cookie: session!, "Content-Type": "application/x-www-form-urlencoded" },
    new URLSearchParams({ csrf: csrfOf(page), intent: "delete" }).toString(),
  );
  expect(answer.status).toBe(302);
  return !(await itemsInFolder()).some(({ id }) => id === item!.id);
}

const uploadsStored = () =>
  fs.existsSync(disk.path("uploads"))
    ? fs
        .readdirSync(disk.path("uploads"), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile()).length
    : 0;

describe("a disk that fills up", () => {
  test("an upload that would use the reserve is refused with the message, the typed words kept, nothing of it stored", async () => {
    disk.leaveFree(RESERVE + 3 * MB);
    const session = await logIn();
    expect(session).not.toBeNull();
    const addPath = `/folders/${folder.id}/add/file`;
    const page = await send("GET", addPath, { Cookie: session! });
    const { body, contentType } = await multipart(
      {
        csrf: csrfOf(page),
        title: "Letters from the attic",
        addComment: "on",
        commentText: "Found them in a shoebox under the stairs",
      },
      { name: "letters.pdf", bytes: pdf(4 * MB) },
    );
    const answer = await send(
      "POST",
      addPath,
      { Cookie: session!, "Content-Type": contentType },
      body,
    );
    expect(answer.status).toBe(507);
    expect(answer.text).toContain("Upload Failed");
    expect(answer.text).toContain(REFUSED);
    expect(answer.text).toContain('value="Letters from the attic"');
    expect(answer.text).toContain("Found them in a shoebox under the stairs");
    expect(uploadsStored()).toBe(0);
    expect(disk.freeBytes()).toBeGreaterThan(RESERVE + 2 * MB);
  });

  test("uploads stop at the reserve: the disk keeps it, and says so", async () => {
    // As a sender would fill it: files until one is refused, then smaller ones.
    const answers: number[] = [];
    for (let size = MB, i = 0; size >= 64 * KB && i < 100; i++) {
      const answer = await apiUpload(size, `scan-${i}.pdf`);
      answers.push(answer.status);
      if (answer.status === 201) continue;
      expect(answer.status).toBe(507);
      expect(JSON.parse(answer.text).error.message).toBe(REFUSED);
      size /= 2;
    }
    expect(answers.filter((status) => status === 201).length).toBeGreaterThanOrEqual(2);
    // The files stopped at the reserve; the rows of the last ones, written after, take a little of it.
    expect(disk.freeBytes()).toBeGreaterThan(RESERVE - 256 * KB);
    const health = await send("GET", "/healthz");
    expect([health.status, health.text]).toEqual([200, "OK"]);
  });

  test("on the full disk, the sender logs in and deletes an item", async () => {
    expect(disk.freeBytes()).toBeLessThan(RESERVE + MB);
    expect(await logInAndDeleteAnItem()).toBe(true);
  });

  test("with most of the reserve taken by another program, /healthz says 503 and why, and log-ins and deletes still work", async () => {
    disk.leaveFree(RESERVE / 2 - MB);
    const health = await send("GET", "/healthz");
    expect(health.status).toBe(503);
    expect(health.text).toBe("Disk nearly full: the space kept for the database is nearly gone");
    const logged =
      /\[healthz\] less than half the disk's reserve for the database is left: \d+\.\d MB free on the data volume, 8 MB kept for the database \(DISK_RESERVE_MB\)/;
    await waitUntil(() => logged.test(server.stderr()), 5_000, "the reason in the log");
    expect(await logInAndDeleteAnItem()).toBe(true);
    // Space freed, the check passes again.
    disk.leaveFree(RESERVE);
    expect((await send("GET", "/healthz")).status).toBe(200);
  });
});
