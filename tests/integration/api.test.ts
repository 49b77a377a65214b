import SwaggerParser from "@apidevtools/swagger-parser";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { describe, expect, test } from "vitest";
import { createUser } from "#db/factories";
import { apiTokens, contentItems, folders, mailboxSuppressions } from "#db/schema";
import { createAnswer, createSentIssue } from "#db/sent-issue-factories";
import { API_TOKEN_RATE_LIMIT } from "~/modules/api/api.server";
import { createApiToken, revokeApiToken } from "~/modules/api/api-tokens.server";
import { issueCsrfToken } from "~/modules/auth/csrf.server";
import { recordReauthentication } from "~/modules/auth/reauthentication.server";
import { createSession, getCurrentSession } from "~/modules/auth/session.server";
import { MISSING_FIELDS } from "~/modules/items/item-validation";
import { LIMITS } from "~/modules/plans/limits";
import { unsubscribe } from "~/modules/recipients/opt-outs.server";
import { formatDay } from "~/platform/dates";
import { db } from "~/platform/db.server";
import * as api from "~/routes/api+/v1.$";
import * as openapi from "~/routes/api+/v1.openapi[.json]";
import * as connect from "~/routes/extension.connect";
import * as profile from "~/routes/profile+/_layout";

/**
 * The JSON API driven through its route module with real tokens against the
 * test's own SQLite file, upload directory and outbox: every endpoint, the
 * authorisation cases and the per-token rate limit.
 */
const ORIGIN = "http://localhost:3000";

function tokenFor(userId: number, scope: "read" | "write" = "write") {
  return createApiToken(userId, { name: `token ${scope}`, scope }).token;
}

type Call = { token?: string | null; body?: unknown; headers?: Record<string, string> };

async function call(method: string, path: string, { token, body, headers = {} }: Call = {}) {
  const init: RequestInit = { method, headers: { ...headers } };
  if (token) (init.headers as Record<string, string>).Authorization = `Bearer ${token}`;
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)["Content-Type"] = "application/json";
  }
  const request = new Request(`${ORIGIN}/api/v1${path}`, init);
  const args = { request, params: {}, context: {} };
  const response = await (method === "GET" ? api.loader(args) : api.action(args));
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    json: text ? JSON.parse(text) : null,
  };
}

const folderBody = (name = "Family") => ({
  name,
  recipients: [{ name: "Mum", email: "mum@example.com" }],
  frequency: "weekly",
  dayOfWeek: 1,
});

async function newFolder(token: string, name?: string) {
  const created = await call("POST", "/folders", { token, body: folderBody(name) });
  expect(created.status).toBe(201);
  return created.json as { id: number; name: string; isPaused: boolean };
}

async function png(color: string) {
  return sharp({ create: { width: 8, height: 8, channels: 3, background: color } })
    .png()
    .toBuffer()
    .then((buffer) => new Uint8Array(buffer));
}

async function photoForm(count: number, title = "Photos") {
  const form = new FormData();
  form.append("title", title);
  form.append("addComment", "on");
  form.append("commentText", "Look!");
  for (let index = 0; index < count; index += 1) {
    form.append(
      "files",
      new Blob([await png(index ? "#00f" : "#f00")], { type: "image/png" }),
      `p${index}.png`,
    );
  }
  return form;
}

describe("authentication", () => {
  test("no token, an unknown one, or a session cookie alone answer 401 and change nothing", async () => {
    const user = createUser(db);
    expect((await call("GET", "/folders")).status).toBe(401);
    const unknown = await call("GET", "/folders", { token: "tht_not-a-real-token" });
    expect(unknown.status).toBe(401);
    expect(unknown.json).toEqual({ error: { code: "unauthorized", message: "Unauthorized" } });
    expect(unknown.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);

    const cookie = (await createSession(user.id, new Request(ORIGIN), "password")).split(";")[0]!;
    const withCookie = await call("POST", "/folders", {
      body: folderBody(),
      headers: { Cookie: cookie },
    });
    expect(withCookie.status).toBe(401);
    expect(db.select().from(folders).where(eq(folders.userId, user.id)).all()).toHaveLength(0);
  });

  test("a revoked token answers 401; last use is recorded", async () => {
    const user = createUser(db);
    const { id, token } = createApiToken(user.id, { name: "script", scope: "read" });
    expect((await call("GET", "/usage", { token })).status).toBe(200);
    const row = db.select().from(apiTokens).where(eq(apiTokens.id, id)).get()!;
    expect(row.lastUsedAt).not.toBeNull();
    expect(row.tokenHash).not.toContain(token.slice(4));
    expect(revokeApiToken(user.id, id)).toBe("script");
    expect((await call("GET", "/usage", { token })).status).toBe(401);
  });

  test("a read token reads but cannot write", async () => {
    const user = createUser(db);
    const read = tokenFor(user.id, "read");
    expect((await call("GET", "/token", { token: read })).json).toMatchObject({ scope: "read" });
    const refused = await call("POST", "/folders", { token: read, body: folderBody() });
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe("insufficient_scope");
    expect(db.select().from(folders).where(eq(folders.userId, user.id)).all()).toHaveLength(0);
  });

  test("a token never opens a page", async () => {
    const user = createUser(db);
    const token = tokenFor(user.id);
    const request = new Request(`${ORIGIN}/profile`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    const refused = await profile.loader({ request, params: {}, context: {} }).catch((e) => e);
    expect(refused).toBeInstanceOf(Response);
    expect((refused as Response).headers.get("Location")).toMatch(/^\/login/);
  });

  test("requests are limited per token, and one token's limit leaves another's alone", async () => {
    const user = createUser(db);
    const token = tokenFor(user.id, "read");
    for (let index = 0; index < API_TOKEN_RATE_LIMIT.points; index += 1) {
      expect((await call("GET", "/token", { token })).status).toBe(200);
    }
    const limited = await call("GET", "/token", { token });
    expect(limited.status).toBe(429);
    expect(limited.json.error.code).toBe("rate_limited");
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await call("GET", "/token", { token: tokenFor(user.id, "read") })).status).toBe(200);
  });
});

describe("folders", () => {
  test("create, list, read, update, pause, reorder and delete", async () => {
    const token = tokenFor(createUser(db).id);
    const first = await newFolder(token, "First");
    const second = await newFolder(token, "Second");
    expect(
      (await call("GET", "/folders", { token })).json.map((f: { name: string }) => f.name),
    ).toEqual(["First", "Second"]);

    const read = await call("GET", `/folders/${first.id}`, { token });
    expect(read.json).toMatchObject({
      folder: { id: first.id, recipients: [{ name: "Mum", email: "mum@example.com" }] },
      items: [],
      pagination: { page: 1, total: 0, totalPages: 1 },
    });

    const updated = await call("PUT", `/folders/${first.id}`, {
      token,
      body: { ...folderBody("Renamed"), frequency: "monthly", dayOfMonth: 15 },
    });
    expect(updated.json).toMatchObject({ name: "Renamed", frequency: "monthly", dayOfMonth: 15 });

    const paused = await call("PATCH", `/folders/${first.id}/pause`, {
      token,
      body: { paused: true },
    });
    expect(paused.json).toMatchObject({ isPaused: true, pauseReason: "user" });
    const stillPaused = await call("PATCH", `/folders/${first.id}/pause`, {
      token,
      body: { paused: true },
    });
    expect(stillPaused.json.isPaused).toBe(true);
    expect((await call("PATCH", `/folders/${first.id}/pause`, { token })).json.isPaused).toBe(
      false,
    );

    expect(
      (await call("PUT", `/folders/${second.id}/reorder`, { token, body: { direction: "up" } }))
        .status,
    ).toBe(200);
    expect(
      (await call("GET", "/folders", { token })).json.map((f: { id: number }) => f.id),
    ).toEqual([second.id, first.id]);

    expect((await call("DELETE", `/folders/${first.id}`, { token })).json).toEqual({ ok: true });
    expect((await call("GET", `/folders/${first.id}`, { token })).status).toBe(404);
  });

  test("the form's messages and rules: validation, Premium frequencies, the folder limit", async () => {
    const token = tokenFor(createUser(db).id);
    const invalid = await call("POST", "/folders", {
      token,
      body: { name: "", recipients: [{ name: "Mum", email: "not-an-email" }] },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.json.error.code).toBe("validation_failed");
    expect(invalid.json.error.fields).toMatchObject({
      name: ["Please enter a folder name"],
      "recipients.0.email": ["Please enter a valid email address for Mum"],
    });
    db.insert(mailboxSuppressions)
      .values({ mailbox: "gone@example.com", email: "gone@example.com", reason: "hard_bounce" })
      .run();
    const suppressed = await call("POST", "/folders", {
      token,
      body: { ...folderBody(), recipients: [{ name: "Mum", email: "Gone+news@example.com" }] },
    });
    expect(suppressed.status).toBe(400);
    expect(suppressed.json.error.fields).toEqual({
      "recipients.0.email": ["Mum's address no longer exists: mail to it comes back undelivered"],
    });
    const noRecipient = await call("POST", "/folders", { token, body: { name: "Alone" } });
    expect(noRecipient.json.error).toMatchObject({
      message: "Please add at least one recipient",
      fields: { recipients: ["Please add at least one recipient"] },
    });

    const daily = await call("POST", "/folders", {
      token,
      body: { ...folderBody(), frequency: "daily" },
    });
    expect(daily.status).toBe(403);
    expect(daily.json.error.message).toBe(
      "Daily and every-two-weeks delivery are Premium features.",
    );

    for (let index = 0; index < LIMITS.free.maxFolders; index += 1)
      await newFolder(token, `F${index}`);
    const over = await call("POST", "/folders", { token, body: folderBody() });
    expect(over.status).toBe(403);
    expect(over.json.error.message).toBe(
      `Hey there! You've reached your maximum of ${LIMITS.free.maxFolders} unique folders. Have you tried adding multiple recipients to a single folder yet?`,
    );
  });

  test("bodies are bounded and must be JSON", async () => {
    const token = tokenFor(createUser(db).id);
    const huge = await call("POST", "/folders", {
      token,
      body: { ...folderBody(), personalSignoff: "x".repeat(70 * 1024) },
    });
    expect(huge.status).toBe(413);
    const request = new Request(`${ORIGIN}/api/v1/folders`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}` },
      body: "{not json",
    });
    const response = await api.action({ request, params: {}, context: {} });
    expect(response.status).toBe(400);
  });

  test("the next issue: a few words for it, skipped and brought back", async () => {
    const token = tokenFor(createUser(db).id);
    const folder = await newFolder(token);
    const noted = await call("PUT", `/folders/${folder.id}/note`, {
      token,
      body: { issueNote: "  Big week  " },
    });
    expect(noted.json.issueNote).toBe("Big week");
    const tooLong = await call("PUT", `/folders/${folder.id}/note`, {
      token,
      body: { issueNote: "x".repeat(501) },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.json.error.message).toBe("Max characters: 500");
    const cleared = await call("PUT", `/folders/${folder.id}/note`, {
      token,
      body: { issueNote: null },
    });
    expect(cleared.json.issueNote).toBeNull();

    const { nextSendAt } = (await call("GET", `/folders/${folder.id}`, { token })).json.folder;
    const skipped = await call("PATCH", `/folders/${folder.id}/skip`, {
      token,
      body: { skipped: true },
    });
    expect(skipped.json.skippedSendAt).toBe(nextSendAt);
    expect(Date.parse(skipped.json.nextSendAt)).toBeGreaterThan(Date.parse(nextSendAt));
    const again = await call("PATCH", `/folders/${folder.id}/skip`, {
      token,
      body: { skipped: true },
    });
    expect(again.json.nextSendAt).toBe(skipped.json.nextSendAt);
    const undone = await call("PATCH", `/folders/${folder.id}/skip`, {
      token,
      body: { skipped: false },
    });
    expect(undone.json).toMatchObject({ skippedSendAt: null, nextSendAt });
    await call("PATCH", `/folders/${folder.id}/pause`, { token, body: { paused: true } });
    const refused = await call("PATCH", `/folders/${folder.id}/skip`, {
      token,
      body: { skipped: true },
    });
    expect(refused.status).toBe(409);
  });
  test("another user's folder and item answer 404, exactly like missing ones", async () => {
    const owner = tokenFor(createUser(db).id);
    const folder = await newFolder(owner);
    const item = await call("POST", `/folders/${folder.id}/items`, {
      token: owner,
      body: { type: "musing", title: "Mine", note: "private" },
    });
    const intruder = tokenFor(createUser(db).id);
    for (const [method, path, body] of [
      ["GET", `/folders/${folder.id}`],
      ["PUT", `/folders/${folder.id}`, folderBody("Stolen")],
      ["DELETE", `/folders/${folder.id}`],
      ["PATCH", `/folders/${folder.id}/pause`, {}],
      ["PATCH", `/folders/${folder.id}/skip`, { skipped: true }],
      ["PUT", `/folders/${folder.id}/note`, { issueNote: "Stolen" }],
      ["POST", `/folders/${folder.id}/send`],
      ["GET", `/folders/${folder.id}/preview`],
      ["POST", `/folders/${folder.id}/items`, { type: "musing", title: "x", note: "y" }],
      ["PATCH", `/items/${item.json.id}`, { title: "Stolen", note: "y" }],
      ["DELETE", `/items/${item.json.id}`],
      ["GET", "/folders/999999"],
    ] as const) {
      const answer = await call(method, path, { token: intruder, body });
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.json.error.code).toBe("not_found");
    }
    const after = await call("GET", `/folders/${folder.id}`, { token: owner });
    expect(after.json.folder.name).toBe("Family");
    expect(after.json.items).toHaveLength(1);
  });
});

describe("items", () => {
  test("links and musings: add, edit, reorder, delete, with the forms' messages", async () => {
    const token = tokenFor(createUser(db).id);
    const folder = await newFolder(token);
    const bad = await call("POST", `/folders/${folder.id}/items`, {
      token,
      body: { type: "link", title: "", urls: ["not a url"], addComment: true },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.fields).toEqual({
      "urls.0": ["Invalid URL format"],
      commentText: [MISSING_FIELDS],
    });

    const link = await call("POST", `/folders/${folder.id}/items`, {
      token,
      body: {
        type: "link",
        title: "Read",
        urls: ["example.com/a"],
        addComment: true,
        commentText: "Good",
      },
    });
    expect(link.status).toBe(201);
    expect(link.json).toMatchObject({
      type: "link",
      urls: ["https://example.com/a"],
      commentText: "Good",
      preview: { status: "pending", title: null, description: null, siteName: null },
    });
    const musing = await call("POST", `/folders/${folder.id}/items`, {
      token,
      body: { type: "musing", title: "Thought", note: "Hello" },
    });

    const edited = await call("PATCH", `/items/${musing.json.id}`, {
      token,
      body: { title: "Thought, edited", note: "Hello again" },
    });
    expect(edited.json).toMatchObject({
      title: "Thought, edited",
      note: "Hello again",
      preview: null,
    });
    // A partial edit keeps the rest; the whole item is still checked as its form checks it.
    const retitled = await call("PATCH", `/items/${link.json.id}`, { token, body: { title: "x" } });
    expect(retitled.json).toMatchObject({
      title: "x",
      urls: ["https://example.com/a"],
      commentText: "Good",
    });
    const emptied = await call("PATCH", `/items/${link.json.id}`, { token, body: { urls: [] } });
    expect(emptied.status).toBe(400);
    expect(emptied.json.error.fields).toEqual({ urls: [MISSING_FIELDS] });

    await call("POST", `/items/${musing.json.id}/reorder`, { token, body: { direction: "up" } });
    const listed = await call("GET", `/folders/${folder.id}`, { token });
    expect(listed.json.items.map((item: { id: number }) => item.id)).toEqual([
      musing.json.id,
      link.json.id,
    ]);

    expect((await call("DELETE", `/items/${link.json.id}`, { token })).status).toBe(200);
    expect((await call("GET", `/folders/${folder.id}`, { token })).json.pagination.total).toBe(1);
  });

  test("a quick save: a link or a photo without title or note is kept and needs a note", async () => {
    const token = tokenFor(createUser(db).id);
    const folder = await newFolder(token);
    // Port 1 answers nothing: the title falls back to the site's name at once.
    const link = await call("POST", `/folders/${folder.id}/items`, {
      token,
      body: { type: "link", urls: ["http://localhost:1/later"] },
    });
    expect(link.status).toBe(201);
    expect(link.json).toMatchObject({ title: "localhost", commentText: null, needsNote: true });
    const form = new FormData();
    form.append("files", new Blob([await png("#f00")], { type: "image/png" }), "IMG_2041.png");
    const photo = await call("POST", `/folders/${folder.id}/upload?type=photo`, {
      token,
      body: form,
    });
    expect(photo.status).toBe(201);
    // A camera's name says nothing: the photo is titled by the day it was saved, in the sender's zone.
    expect(photo.json).toMatchObject({
      title: `Photo, ${formatDay(new Date(), "UTC", { year: false })}`,
      needsNote: true,
    });
    const noted = await call("PATCH", `/items/${photo.json.id}`, {
      token,
      body: { title: "Beach", addComment: true, commentText: "Sunny" },
    });
    expect(noted.json.needsNote).toBe(false);
    // A musing still needs its title and note, as in its form.
    const musing = await call("POST", `/folders/${folder.id}/items`, {
      token,
      body: { type: "musing" },
    });
    expect(musing.json.error.fields).toEqual({
      title: ["Title is required"],
      note: [MISSING_FIELDS],
    });
  });

  test("photos: upload, add a file, remove one file, not the last", async () => {
    const token = tokenFor(createUser(db).id);
    const folder = await newFolder(token);
    const uploaded = await call("POST", `/folders/${folder.id}/upload?type=photo`, {
      token,
      body: await photoForm(2),
    });
    expect(uploaded.status).toBe(201);
    expect(uploaded.json).toMatchObject({ type: "photo", title: "Photos", commentText: "Look!" });
    expect(uploaded.json.files).toHaveLength(2);
    const itemId = uploaded.json.id as number;

    const added = await call("POST", `/items/${itemId}/add-files`, {
      token,
      body: await photoForm(1),
    });
    expect(added.json.files).toHaveLength(3);
    const edited = await call("PATCH", `/items/${itemId}`, {
      token,
      body: { title: "Holiday", askQuestion: true, questionText: "Which one?" },
    });
    expect(edited.json).toMatchObject({
      title: "Holiday",
      addComment: true,
      commentText: "Look!",
      questionText: "Which one?",
    });
    expect(edited.json.files).toHaveLength(3);
    const tooMany = await call("POST", `/items/${itemId}/add-files`, {
      token,
      body: await photoForm(1),
    });
    expect(tooMany.status).toBe(409);
    expect(tooMany.json.error.message).toBe("Photo limit reached");

    expect((await call("DELETE", `/items/${itemId}/files/0`, { token })).status).toBe(200);
    expect((await call("DELETE", `/items/${itemId}/files/0`, { token })).status).toBe(200);
    const last = await call("DELETE", `/items/${itemId}/files/0`, { token });
    expect(last.status).toBe(409);
    expect(last.json.error.message).toBe(
      "The last file of an item cannot be removed. Delete the item instead.",
    );

    const wrongKind = new FormData();
    wrongKind.append("title", "Not a PDF");
    wrongKind.append("addComment", "on");
    wrongKind.append("commentText", "x");
    wrongKind.append("files", new Blob([await png("#0f0")], { type: "application/pdf" }), "a.pdf");
    const refused = await call("POST", `/folders/${folder.id}/upload?type=file`, {
      token,
      body: wrongKind,
    });
    expect(refused.status).toBe(415);
    expect(refused.json.error.code).toBe("INVALID_FILE_TYPE");
  });
});

describe("preview, Send Now, recipients, usage and referrals", () => {
  test("preview and Send Now use the send engine; an empty folder is refused with the spec's message", async () => {
    const token = tokenFor(createUser(db).id);
    const folder = await newFolder(token);
    expect((await call("GET", `/folders/${folder.id}/preview`, { token })).json).toEqual({
      subject: null,
      html: null,
      text: null,
    });
    const empty = await call("POST", `/folders/${folder.id}/send`, { token });
    expect(empty.status).toBe(409);
    expect(empty.json.error.message).toBe(
      "Failed to send folder. Please check that your folder has content and try again.",
    );
    await call("POST", `/folders/${folder.id}/items`, {
      token,
      body: { type: "musing", title: "News", note: "All well" },
    });
    const preview = await call("GET", `/folders/${folder.id}/preview`, { token });
    expect(preview.json.html).toContain("All well");
    const sent = await call("POST", `/folders/${folder.id}/send`, { token });
    expect(sent.json).toEqual({ messages: 1, pending: 0 });
    const unsent = db.select().from(contentItems).where(eq(contentItems.folderId, folder.id)).all();
    expect(unsent.every((item) => item.sentAt !== null)).toBe(true);
  });

  test("Send Now through the API has the web app's limit: a mailbox gets 3 a day from one sender", async () => {
    const token = tokenFor(createUser(db).id);
    const folder = await newFolder(token);
    // Nothing in the folder: refused, and a refused send does not count.
    expect((await call("POST", `/folders/${folder.id}/send`, { token })).status).toBe(409);
    const statuses = [];
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await call("POST", `/folders/${folder.id}/items`, {
        token,
        body: { type: "musing", title: `News ${attempt}`, note: "All well" },
      });
      const response = await call("POST", `/folders/${folder.id}/send`, { token });
      statuses.push(response.status);
      if (response.status === 429) {
        expect(response.json.error.message).toMatch(
          /^Send Now reaches a recipient at most 3 times a day, and mum@example\.com has had 3 today\. Please try again in 24 hours/,
        );
        expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(23 * 60 * 60);
      }
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });

  test("recipients and re-subscription requests follow the web app's rules", async () => {
    const token = tokenFor(createUser(db).id);
    const folder = await newFolder(token);
    expect((await call("GET", `/folders/${folder.id}/recipients`, { token })).json).toEqual([
      { email: "mum@example.com", status: "active", resubscribeRequestedAt: null },
    ]);
    const refused = await call("POST", `/folders/${folder.id}/request-resubscription`, {
      token,
      body: { email: "mum@example.com" },
    });
    expect(refused.status).toBe(409);
    expect(refused.json.error.message).toBe(
      "mum@example.com has not unsubscribed from this folder.",
    );

    unsubscribe({ folderId: folder.id, email: "mum@example.com", reason: "too_frequent" });
    const asked = await call("POST", `/folders/${folder.id}/request-resubscription`, {
      token,
      body: { email: "mum@example.com" },
    });
    expect(asked.json).toEqual({ ok: true });
    const states = await call("GET", `/folders/${folder.id}/recipients`, { token });
    expect(states.json).toMatchObject([
      {
        email: "mum@example.com",
        status: "unsubscribed",
        resubscribeRequestedAt: expect.any(String),
      },
    ]);
    const again = await call("POST", `/folders/${folder.id}/request-resubscription`, {
      token,
      body: { email: "mum@example.com" },
    });
    expect(again.status).toBe(409);
    expect(again.json.error.message).toMatch(
      /^You already asked mum@example.com to re-subscribe on /,
    );
  });

  test("usage and referral stats", async () => {
    const token = tokenFor(createUser(db).id, "read");
    expect((await call("GET", "/usage", { token })).json).toEqual({
      folderCount: 0,
      totalStorageBytes: 0,
      subscriptionTier: "free",
      limits: { maxFolders: LIMITS.free.maxFolders, maxStorageBytes: LIMITS.free.maxStorageBytes },
    });
    expect((await call("GET", "/referrals/stats", { token })).json).toMatchObject({
      completedReferrals: 0,
      bonusFolders: 0,
    });
  });
});

describe("bodies shaped like the seed's calls", () => {
  test("multipart booleans may be true/false, on/off or 1/0", async () => {
    const token = tokenFor(createUser(db).id);
    const folder = await newFolder(token);
    const form = await photoForm(1);
    form.set("addComment", "true");
    form.set("askQuestion", "0");
    form.set("questionText", "Dropped: the box is unticked");
    const uploaded = await call("POST", `/folders/${folder.id}/upload?type=photo`, {
      token,
      body: form,
    });
    expect(uploaded.status).toBe(201);
    expect(uploaded.json).toMatchObject({
      addComment: true,
      commentText: "Look!",
      askQuestion: false,
      questionText: null,
    });
    const musing = await call("POST", `/folders/${folder.id}/items`, {
      token,
      body: { type: "link", title: "A", urls: ["example.com"], addComment: "1", commentText: "x" },
    });
    expect(musing.json.addComment).toBe(true);
    const created = await call("POST", "/folders", {
      token,
      body: { ...folderBody("CC"), ccSender: "true" },
    });
    expect(created.json.ccSender).toBe(true);
    const refused = await call("POST", "/folders", {
      token,
      body: { ...folderBody("CC"), ccSender: "maybe" },
    });
    expect(refused.status).toBe(400);
    expect(Object.keys(refused.json.error.fields)).toEqual(["ccSender"]);
  });

  test("the sign-off is saved without an extra flag and kept when an update leaves it out", async () => {
    const token = tokenFor(createUser(db).id);
    // The seed's create body, as its folder dialog sends it.
    const created = await call("POST", "/folders", {
      token,
      body: {
        ...folderBody(),
        dayOfMonth: null,
        timeOfDay: "00:01",
        ccSender: false,
        personalSignoff: "Love, Ann",
      },
    });
    expect(created.status).toBe(201);
    expect(created.json.personalSignoff).toBe("Love, Ann");
    const renamed = await call("PUT", `/folders/${created.json.id}`, {
      token,
      body: folderBody("Renamed"),
    });
    expect(renamed.json).toMatchObject({ name: "Renamed", personalSignoff: "Love, Ann" });
    const partial = await call("PUT", `/folders/${created.json.id}`, {
      token,
      body: { ccSender: true },
    });
    expect(partial.json).toMatchObject({
      name: "Renamed",
      recipients: [{ name: "Mum", email: "mum@example.com" }],
      ccSender: true,
      personalSignoff: "Love, Ann",
    });
    const cleared = await call("PUT", `/folders/${created.json.id}`, {
      token,
      body: { personalSignoff: null },
    });
    expect(cleared.json.personalSignoff).toBeNull();
    const unticked = await call("POST", "/folders", {
      token,
      body: { ...folderBody("Off"), personalSignoff: "Hidden", signoffEnabled: false },
    });
    expect(unticked.json.personalSignoff).toBeNull();
    const empty = await call("POST", "/folders", {
      token,
      body: { ...folderBody("Ticked"), signoffEnabled: true },
    });
    expect(empty.json.error.fields).toEqual({
      personalSignoff: ["Please enter a personal sign-off or uncheck the option"],
    });
  });

  test("adding files needs only the files; the item keeps its title and comment", async () => {
    const token = tokenFor(createUser(db).id);
    const folder = await newFolder(token);
    const uploaded = await call("POST", `/folders/${folder.id}/upload?type=photo`, {
      token,
      body: await photoForm(1, "Holiday"),
    });
    const itemId = uploaded.json.id as number;
    const onlyFiles = new FormData();
    onlyFiles.append("itemId", String(itemId));
    onlyFiles.append("type", "photo");
    onlyFiles.append("files", new Blob([await png("#0f0")], { type: "image/png" }), "g.png");
    const added = await call("POST", `/items/${itemId}/add-files`, { token, body: onlyFiles });
    expect(added.status).toBe(200);
    expect(added.json).toMatchObject({ title: "Holiday", addComment: true, commentText: "Look!" });
    expect(added.json.files.map((file: { name: string }) => file.name)).toEqual([
      "p0.jpg",
      "g.jpg",
    ]);
    const retitled = new FormData();
    retitled.append("title", "Beach");
    retitled.append("files", new Blob([await png("#00f")], { type: "image/png" }), "b.png");
    const changed = await call("POST", `/items/${itemId}/add-files`, { token, body: retitled });
    expect(changed.json).toMatchObject({ title: "Beach", commentText: "Look!" });
    expect(changed.json.files).toHaveLength(3);
  });

  test("the folder list counts each folder's items and bytes; a page holds `limit` items, at most 100", async () => {
    const token = tokenFor(createUser(db).id);
    const full = await newFolder(token, "Full");
    await newFolder(token, "Empty");
    const photo = await call("POST", `/folders/${full.id}/upload?type=photo`, {
      token,
      body: await photoForm(2),
    });
    const photoBytes = (photo.json.files as { size: number }[]).reduce((sum, f) => sum + f.size, 0);
    for (const title of ["One", "Two"]) {
      await call("POST", `/folders/${full.id}/items`, {
        token,
        body: { type: "musing", title, note: "A thought" },
      });
    }
    const listed = await call("GET", "/folders", { token });
    expect(
      listed.json.map((f: { name: string; itemCount: number; totalSize: number }) => [
        f.name,
        f.itemCount,
        f.totalSize,
      ]),
    ).toEqual([
      ["Full", 3, photoBytes],
      ["Empty", 0, 0],
    ]);
    expect(listed.json[0].maxSize).toBe(LIMITS.folder.maxSizeBytes);

    const firstPage = await call("GET", `/folders/${full.id}?limit=2`, { token });
    expect(firstPage.json.items).toHaveLength(2);
    expect(firstPage.json.pagination).toMatchObject({
      page: 1,
      limit: 2,
      total: 3,
      totalPages: 2,
      hasMore: true,
    });
    const secondPage = await call("GET", `/folders/${full.id}?limit=2&page=2`, { token });
    expect(secondPage.json.items.map((item: { title: string }) => item.title)).toEqual(["Two"]);
    const capped = await call("GET", `/folders/${full.id}?limit=5000`, { token });
    expect(capped.json.pagination.limit).toBe(100);
    expect((await call("GET", `/folders/${full.id}?limit=0`, { token })).status).toBe(400);
  });
});

describe("recipients' answers", () => {
  /** A folder sent to Mum and to a friend not named on the list any more, with three answers. */
  async function answeredFolder(token: string, userId: number, name: string) {
    const folder = await newFolder(token, name);
    const { items, copies } = createSentIssue(db, folder.id, {
      titles: ["Garden", "Recipe"],
      emails: ["mum@example.com", "old-friend@example.com"],
    });
    const [mum, friend] = copies as [(typeof copies)[number], (typeof copies)[number]];
    const on = { userId, folderId: folder.id };
    const heart = createAnswer(db, { ...on, copy: mum, itemId: items[0]!.id });
    const note = createAnswer(db, {
      ...on,
      copy: mum,
      itemId: items[1]!.id,
      body: "Made it <b>twice</b>\nLovely",
    });
    const friendHeart = createAnswer(db, { ...on, copy: friend, itemId: items[1]!.id });
    return { folder, items, heart, note, friendHeart };
  }

  test("a read token lists them newest first, with names, and walks forward from an id", async () => {
    const user = createUser(db);
    const token = tokenFor(user.id);
    const read = tokenFor(user.id, "read");
    const { folder, items, heart, note, friendHeart } = await answeredFolder(token, user.id, "A");
    const other = await answeredFolder(token, user.id, "B");

    const all = await call("GET", "/answers", { token: read });
    expect(all.status).toBe(200);
    expect(all.json.hasMore).toBe(false);
    expect(all.json.answers.map((answer: { id: number }) => answer.id)).toEqual([
      other.friendHeart.id,
      other.note.id,
      other.heart.id,
      friendHeart.id,
      note.id,
      heart.id,
    ]);
    expect(all.json.answers[4]).toEqual({
      id: note.id,
      folderId: folder.id,
      issueId: note.ledgerId,
      itemId: items[1]!.id,
      recipient: "mum@example.com",
      name: "Mum",
      kind: "note",
      text: "Made it <b>twice</b>\nLovely",
      createdAt: note.createdAt.toISOString(),
    });
    expect(all.json.answers[3]).toMatchObject({
      kind: "heart",
      text: null,
      name: "old-friend@example.com",
    });

    const firstTwo = await call("GET", `/answers?after=0&limit=2&folderId=${folder.id}`, {
      token: read,
    });
    expect(firstTwo.json.answers.map((answer: { id: number }) => answer.id)).toEqual([
      heart.id,
      note.id,
    ]);
    expect(firstTwo.json.hasMore).toBe(true);
    const rest = await call("GET", `/answers?after=${note.id}&limit=2&folderId=${folder.id}`, {
      token: read,
    });
    expect(rest.json).toMatchObject({ answers: [{ id: friendHeart.id }], hasMore: false });
    expect((await call("GET", "/answers?limit=5000", { token: read })).status).toBe(200);
    expect((await call("GET", "/answers?limit=0", { token: read })).status).toBe(400);
  });

  test("another sender sees none of them and not the folder", async () => {
    const owner = createUser(db);
    const { folder } = await answeredFolder(tokenFor(owner.id), owner.id, "Family");
    const stranger = tokenFor(createUser(db).id, "read");
    expect((await call("GET", "/answers", { token: stranger })).json).toEqual({
      answers: [],
      hasMore: false,
    });
    const theirs = await call("GET", `/answers?folderId=${folder.id}`, { token: stranger });
    expect(theirs.status).toBe(404);
  });
});

describe("the OpenAPI document", () => {
  test("is valid OpenAPI and every documented operation is served", async () => {
    const response = await openapi.loader();
    const document = await response.json();
    await SwaggerParser.validate(structuredClone(document));
    const token = tokenFor(createUser(db).id);
    const operations = Object.entries(
      document.paths as Record<string, Record<string, unknown>>,
    ).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => [method.toUpperCase(), path] as const),
    );
    expect(operations.length).toBeGreaterThanOrEqual(20);
    for (const [method, path] of operations) {
      const concrete = path.replace(/\{\w+\}/g, "999999");
      const answer = await call(method, concrete, {
        token,
        body: method === "GET" ? undefined : {},
      });
      expect(answer.json?.error?.code, `${method} ${path}`).not.toBe("route_not_found");
      expect(answer.status, `${method} ${path}`).not.toBe(405);
    }
    expect((await call("GET", "/no-such-route", { token })).json.error.code).toBe(
      "route_not_found",
    );
  });
});

test("the OpenAPI document describes the seed's shapes", async () => {
  const document = await (await openapi.loader()).json();
  const read = document.paths["/folders/{folderId}"];
  expect(read.get.parameters.map((parameter: { name: string }) => parameter.name)).toContain(
    "limit",
  );
  expect(read.put.summary).toContain("a field left out keeps its value");
  const folder = document.paths["/folders"].get.responses["200"].content["application/json"].schema;
  expect(Object.keys(folder.items.properties)).toEqual(
    expect.arrayContaining(["itemCount", "totalSize", "maxSize"]),
  );
  const addFiles =
    document.paths["/items/{itemId}/add-files"].post.requestBody.content["multipart/form-data"]
      .schema;
  expect(addFiles.required).toEqual(["files"]);
  expect(addFiles.properties.addComment.enum).toContain("true");
});

describe("connecting the Chrome extension", () => {
  const connectUrl = (returnUrl: string) =>
    `/extension/connect?${new URLSearchParams({ return: returnUrl, state: "s".repeat(32) })}`;

  async function signedIn(userId: number, path: string) {
    const cookie = (await createSession(userId, new Request(ORIGIN), "password")).split(";")[0]!;
    const probe = new Request(`${ORIGIN}${path}`, { headers: { Cookie: cookie } });
    const { sessionId } = (await getCurrentSession(probe))!;
    // The owner confirmed it is them just now, as minting a token asks.
    recordReauthentication(sessionId, "password");
    const { token } = await issueCsrfToken(probe, sessionId);
    return { cookie, csrf: token };
  }

  test("hands a write token only to an extension page, after the user's consent", async () => {
    const user = createUser(db);
    const extensionPage = `chrome-extension://${"a".repeat(32)}/connected.html`;
    const { cookie, csrf } = await signedIn(user.id, "/extension/connect");
    const elsewhere = new Request(`${ORIGIN}${connectUrl("https://evil.example/steal")}`, {
      headers: { Cookie: cookie },
    });
    const refused = await connect
      .loader({ request: elsewhere, params: {}, context: {} })
      .catch((e) => e);
    expect((refused as Response).status).toBe(400);

    const post = (returnUrl: string) =>
      new Request(`${ORIGIN}/extension/connect`, {
        method: "POST",
        headers: {
          Cookie: cookie,
          Origin: ORIGIN,
          "Content-Type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ csrf, return: returnUrl, state: "s".repeat(32) }),
      });
    const evil = await connect
      .action({ request: post("https://evil.example/"), params: {}, context: {} })
      .catch((e) => e);
    expect((evil as Response).status).toBe(400);
    expect(db.select().from(apiTokens).where(eq(apiTokens.userId, user.id)).all()).toHaveLength(0);

    const answer = await connect.action({ request: post(extensionPage), params: {}, context: {} });
    const { finishUrl } = (answer as unknown as { data: { finishUrl: string } }).data;
    const fragment = new URLSearchParams(new URL(finishUrl).hash.slice(1));
    expect(finishUrl.startsWith(`${extensionPage}#`)).toBe(true);
    expect(fragment.get("state")).toBe("s".repeat(32));
    const token = fragment.get("token")!;
    expect((await call("GET", "/token", { token })).json).toMatchObject({ scope: "write" });
  });
});

test("a folder says who will get its next issue, and why the others will not", async () => {
  const { markBounced } = await import("~/modules/recipients/opt-outs.server");
  const token = tokenFor(createUser(db).id);
  const created = await call("POST", "/folders", {
    token,
    body: {
      ...folderBody("Family news"),
      recipients: [
        { name: "Mum", email: "mum-reach@example.com" },
        { name: "Dad", email: "dad-reach@example.com" },
        { name: "Gran", email: "gran-reach@example.com" },
      ],
    },
  });
  expect(created.json.nextIssue).toEqual({
    recipients: 3,
    willGetIt: 3,
    missing: [],
    line: "3 recipients",
  });
  markBounced(created.json.id, "mum-reach@example.com", "550 no such user");
  const listed = await call("GET", "/folders", { token });
  expect(listed.json[0].nextIssue).toEqual({
    recipients: 3,
    willGetIt: 2,
    missing: [{ name: "Mum", email: "mum-reach@example.com", because: "bounced" }],
    line: "2 of 3 will get it: Mum's address bounced",
  });
  const read = await call("GET", `/folders/${created.json.id}`, { token });
  expect(read.json.folder.nextIssue.willGetIt).toBe(2);
});

describe("an API that takes what it documents (issue 49, item 15)", () => {
  test("an upload without `type` is what its bytes are, whatever its name or claimed type", async () => {
    const token = tokenFor(createUser(db).id);
    const folder = await newFolder(token);
    const photo = new FormData();
    photo.append("files", new Blob([await png("#f80")], { type: "application/pdf" }), "scan.pdf");
    const asPhoto = await call("POST", `/folders/${folder.id}/upload`, { token, body: photo });
    expect(asPhoto.status).toBe(201);
    expect(asPhoto.json).toMatchObject({ type: "photo", video: null, needsNote: true });

    const pdf = new FormData();
    pdf.append("files", new Blob(["%PDF-1.4\n%%EOF\n"], { type: "image/png" }), "menu");
    const asFile = await call("POST", `/folders/${folder.id}/upload`, { token, body: pdf });
    expect(asFile.status).toBe(201);
    expect(asFile.json.type).toBe("file");

    const none = new FormData();
    none.append("title", "Nothing");
    const empty = await call("POST", `/folders/${folder.id}/upload`, { token, body: none });
    expect(empty.status).toBe(400);
    expect(empty.json.error.fields).toEqual({ files: ["Please select at least one file"] });
  });

  test("a recipient without a name is refused with a message, on create and on update", async () => {
    const token = tokenFor(createUser(db).id);
    const refused = await call("POST", "/folders", {
      token,
      body: {
        ...folderBody(),
        recipients: [{ name: "Mum", email: "mum@example.com" }, { email: "dad@example.com" }],
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.json.error.fields).toEqual({
      "recipients.1.name": ["Please enter a name for dad@example.com"],
    });
    const folder = await newFolder(token);
    const update = await call("PUT", `/folders/${folder.id}`, {
      token,
      body: { recipients: [{ email: "dad@example.com" }] },
    });
    expect(update.status).toBe(400);
    expect(update.json.error.fields).toMatchObject({
      "recipients.0.name": ["Please enter a name for dad@example.com"],
    });
    const kept = await call("GET", `/folders/${folder.id}`, { token });
    expect(kept.json.folder.recipients).toEqual([{ name: "Mum", email: "mum@example.com" }]);
  });

  test("`dayOfMonth: null`, as a weekly folder reads, is taken back on create and update", async () => {
    const token = tokenFor(createUser(db).id);
    const created = await call("POST", "/folders", {
      token,
      body: { ...folderBody(), dayOfMonth: null },
    });
    expect(created.status).toBe(201);
    expect(created.json.dayOfMonth).toBeNull();
    const updated = await call("PUT", `/folders/${created.json.id}`, {
      token,
      body: { ...created.json, name: "Family, renamed" },
    });
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({ name: "Family, renamed", dayOfMonth: null });
  });

  test("the document lists 415, the PATCH body and `dayOfMonth: null`", async () => {
    const document = await (await openapi.loader()).json();
    const upload = document.paths["/folders/{folderId}/upload"].post;
    expect(Object.keys(upload.responses)).toContain("415");
    expect(upload.parameters).toContainEqual(
      expect.objectContaining({ name: "type", in: "query", required: false }),
    );
    const patch =
      document.paths["/items/{itemId}"].patch.requestBody.content["application/json"].schema;
    expect(Object.keys(patch.properties)).toEqual(
      expect.arrayContaining(["title", "urls", "note", "addComment", "commentText"]),
    );
    expect(patch.required ?? []).toEqual([]);
    for (const [path, method] of [
      ["/folders", "post"],
      ["/folders/{folderId}", "put"],
    ] as const) {
      const body = document.paths[path][method].requestBody.content["application/json"].schema;
      expect(body.properties.dayOfMonth, `${method} ${path}`).toMatchObject({ nullable: true });
    }
    const item =
      document.paths["/items/{itemId}"].patch.responses["200"].content["application/json"].schema;
    expect(item.properties.video.properties.status.enum).toEqual(["preparing", "ready", "failed"]);
  });
});
