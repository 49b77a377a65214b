import fs from "node:fs";
import path from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import Ajv, { type ValidateFunction } from "ajv";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { describe, expect, test } from "vitest";
import { createUser } from "#db/factories";
import { contentItems } from "#db/schema";
import { startBuiltServer, tempDir, thisFilesDataDir, waitUntil } from "../support/integration";
import { clip1080p, probe } from "../support/video-clips";

/**
 * The JSON API of the production build, answered over HTTP (issue 49, item 15; issue 46, the
 * API's door): every answer is checked against the OpenAPI document the same server serves, and
 * a clip made here by ffmpeg is uploaded, prepared in the background and stored as H.264/AAC at
 * most 720p. Needs `npm run build` first.
 */
const server = await startBuiltServer({}, { dataDir: thisFilesDataDir() });
const { db } = await import("~/platform/db.server");
const { createApiToken } = await import("~/modules/api/api-tokens.server");

type OpenApiDocument = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>
  >;
};

/** The document as served, its references resolved. */
const document = (await SwaggerParser.dereference(
  await (await fetch(`${server.base}/api/v1/openapi.json`)).json(),
)) as unknown as OpenApiDocument;

/**
 * The schema made strict: an object's properties are all it may hold, so a field served but not
 * documented fails as surely as a documented one missing or of another type.
 */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== "object" || schema === null) return schema;
  const copy = Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, closed(value)]),
  );
  if ("properties" in copy && !("additionalProperties" in copy)) copy.additionalProperties = false;
  return copy;
}

// OpenAPI 3.0's schemas are JSON Schema with `nullable`, which Ajv reads; formats are words here.
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const validators = new Map<string, ValidateFunction>();

/** Operations called, as "METHOD /path/{template}", to show every one was checked. */
const checked = new Set<string>();

function templateOf(method: string, pathname: string) {
  const found = Object.keys(document.paths).find((template) => {
    if (!document.paths[template]![method.toLowerCase()]) return false;
    const pattern = template.replace(/\{\w+\}/g, "[^/]+");
    return new RegExp(`^${pattern}$`).test(pathname);
  });
  if (!found) throw new Error(`${method} ${pathname} is not in the document`);
  return found;
}

/**
 * One call to the live API; its answer must have a status the document lists for the
 * operation, and a body its schema for that status accepts.
 */
async function call(
  method: string,
  pathAndQuery: string,
  { token, body }: { token: string; body?: unknown },
) {
  const init: RequestInit = { method, headers: { Authorization: `Bearer ${token}` } };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)["Content-Type"] = "application/json";
  }
  const response = await fetch(`${server.base}/api/v1${pathAndQuery}`, init);
  const json = await response.json();
  const pathname = pathAndQuery.split("?")[0]!;
  const template = templateOf(method, pathname);
  const operation = `${method} ${template}`;
  const documented = document.paths[template]![method.toLowerCase()]!.responses[response.status];
  expect(documented, `${operation} answered ${response.status}, not documented`).toBeDefined();
  const key = `${operation} ${response.status}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(closed(documented!.content!["application/json"]!.schema) as object);
    validators.set(key, validate);
  }
  const valid = validate(json);
  expect(valid ? [] : validate.errors, `${key}: ${JSON.stringify(json).slice(0, 400)}`).toEqual([]);
  checked.add(operation);
  return { status: response.status, json };
}

async function png(color: string) {
  const bytes = await sharp({ create: { width: 8, height: 8, channels: 3, background: color } })
    .png()
    .toBuffer();
  return new Blob([new Uint8Array(bytes)], { type: "image/png" });
}

const clips = tempDir("api-clips-");

/** Where the built server keeps a stored file (the local disk's layout, storage/). */
const storedPath = (key: string) => path.join(server.dataDir, "uploads", key.slice(0, 2), key);

function tokenFor(userId: number, scope: "read" | "write" = "write") {
  return createApiToken(userId, { name: `live ${scope}`, scope }).token;
}

describe("live answers match the OpenAPI document", () => {
  test("every documented operation answers as documented, refusals included", async () => {
    const sender = createUser(db);
    const token = tokenFor(sender.id);
    const read = tokenFor(sender.id, "read");

    await call("GET", "/token", { token });
    await call("GET", "/usage", { token });
    const folder = (
      await call("POST", "/folders", {
        token,
        body: {
          name: "Family",
          recipients: [{ name: "Mum", email: "mum@example.com" }],
          frequency: "weekly",
          dayOfWeek: 3,
          dayOfMonth: null,
        },
      })
    ).json as { id: number };
    const other = (
      await call("POST", "/folders", {
        token,
        body: {
          name: "Friends",
          recipients: [{ name: "Ann", email: "ann@example.com" }],
          frequency: "monthly",
          dayOfMonth: 31,
        },
      })
    ).json as { id: number };
    await call("GET", "/folders", { token });
    await call("PUT", `/folders/${folder.id}`, { token, body: { ccSender: true } });
    await call("PATCH", `/folders/${folder.id}/pause`, { token, body: { paused: true } });
    await call("PATCH", `/folders/${folder.id}/pause`, { token, body: { paused: false } });
    await call("PATCH", `/folders/${folder.id}/skip`, { token, body: { skipped: true } });
    await call("PATCH", `/folders/${folder.id}/skip`, { token, body: { skipped: false } });
    await call("PUT", `/folders/${folder.id}/note`, { token, body: { issueNote: "Hello all" } });
    await call("PUT", `/folders/${other.id}/reorder`, { token, body: { direction: "up" } });
    await call("GET", `/folders/${folder.id}/preview`, { token });

    const link = await call("POST", `/folders/${folder.id}/items`, {
      token,
      body: {
        type: "link",
        title: "Read",
        urls: ["https://example.com/a"],
        addComment: true,
        commentText: "Good",
      },
    });
    expect(link.status).toBe(201);
    const musing = await call("POST", `/folders/${folder.id}/items`, {
      token,
      body: { type: "musing", title: "Thought", note: "Hello" },
    });
    const photos = new FormData();
    photos.append("files", await png("#f00"), "red.png");
    photos.append("files", await png("#00f"), "blue.png");
    const photo = await call("POST", `/folders/${folder.id}/upload`, { token, body: photos });
    expect(photo.json).toMatchObject({ type: "photo", video: null, needsNote: true });
    const more = new FormData();
    more.append("files", await png("#0f0"), "green.png");
    await call("POST", `/items/${photo.json.id}/add-files`, { token, body: more });
    await call("PATCH", `/items/${photo.json.id}`, {
      token,
      body: { addComment: true, commentText: "Colours" },
    });
    await call("DELETE", `/items/${photo.json.id}/files/2`, { token });
    await call("POST", `/items/${musing.json.id}/reorder`, { token, body: { direction: "up" } });
    await call("GET", `/folders/${folder.id}?limit=2`, { token });
    await call("GET", `/folders/${folder.id}/recipients`, { token });
    await call("GET", "/answers", { token: read });
    await call("GET", "/referrals/stats", { token: read });

    // Refusals, each in the one error shape with a status the document lists.
    expect((await call("GET", "/folders/999999", { token })).status).toBe(404);
    expect((await call("POST", "/folders", { token: read, body: {} })).status).toBe(403);
    const unnamed = await call("POST", "/folders", {
      token,
      body: { name: "X", recipients: [{ email: "dad@example.com" }] },
    });
    expect(unnamed.status).toBe(400);
    const notAPhoto = new FormData();
    notAPhoto.append("files", new Blob(["%PDF-1.4\n%%EOF\n"]), "fake.png");
    const refused = await call("POST", `/folders/${folder.id}/upload?type=photo`, {
      token,
      body: notAPhoto,
    });
    expect(refused.status).toBe(415);
    expect(
      (
        await call("POST", `/folders/${folder.id}/request-resubscription`, {
          token,
          body: { email: "mum@example.com" },
        })
      ).status,
    ).toBe(409);

    await call("POST", `/folders/${folder.id}/send`, { token });
    await call("DELETE", `/items/${link.json.id}`, { token });
    await call("DELETE", `/folders/${other.id}`, { token });

    // The check itself can fail: an answer with a field the document lacks, or a null where it
    // allows none, is refused.
    const page = await call("GET", `/folders/${folder.id}`, { token });
    const validatePage = validators.get("GET /folders/{folderId} 200")!;
    expect(validatePage(page.json)).toBe(true);
    expect(validatePage({ ...page.json, folder: { ...page.json.folder, secret: 1 } })).toBe(false);
    expect(validatePage({ ...page.json, folder: { ...page.json.folder, name: null } })).toBe(false);
    const item = page.json.items[0];
    expect(validatePage({ ...page.json, items: [{ ...item, video: { status: "done" } }] })).toBe(
      false,
    );

    const documented = Object.entries(document.paths).flatMap(([template, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${template}`),
    );
    expect(documented.filter((operation) => !checked.has(operation))).toEqual([]);
  }, 60_000);
});

describe("a video through the API (issue 46)", () => {
  test("a clip uploaded without a type becomes a video, prepared in the background to a 720p H.264/AAC MP4", async () => {
    const token = tokenFor(createUser(db).id);
    const folder = (
      await call("POST", "/folders", {
        token,
        body: {
          name: "Clips",
          recipients: [{ name: "Mum", email: "mum@example.com" }],
          frequency: "weekly",
        },
      })
    ).json as { id: number };
    const form = new FormData();
    form.append("title", "First steps");
    form.append("addComment", "on");
    form.append("commentText", "Look at her go");
    const clip = fs.readFileSync(clip1080p(clips));
    form.append("files", new Blob([new Uint8Array(clip)], { type: "video/mp4" }), "IMG_0042.mp4");
    const uploaded = await call("POST", `/folders/${folder.id}/upload`, { token, body: form });
    expect(uploaded.status).toBe(201);
    expect(uploaded.json).toMatchObject({
      type: "video",
      title: "First steps",
      video: { status: "preparing", error: null },
    });
    const itemId = uploaded.json.id as number;

    // Polled as a script would, each answer checked against the document on the way.
    const seen: string[] = [];
    let item = uploaded.json;
    const deadline = Date.now() + 90_000;
    while (item.video.status === "preparing") {
      expect(Date.now(), `still preparing: ${seen.join(", ")}`).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 250));
      const page = await call("GET", `/folders/${folder.id}`, { token });
      item = page.json.items.find((listed: { id: number }) => listed.id === itemId);
      seen.push(`${item.video.status} ${item.video.progress}%`);
    }
    expect(item.video).toEqual({ status: "ready", progress: 100, error: null });
    expect(item.files).toEqual([expect.objectContaining({ index: 0, name: "IMG_0042.mp4" })]);

    const row = db.select().from(contentItems).where(eq(contentItems.id, itemId)).get()!;
    expect(row.mimeTypes).toEqual(["video/mp4"]);
    const stored = probe(storedPath(row.filePaths[0]!));
    const video = stored.streams.find((stream) => stream.codec_type === "video")!;
    const audio = stored.streams.find((stream) => stream.codec_type === "audio")!;
    expect(stored.format.format_name).toContain("mp4");
    expect(video.codec_name).toBe("h264");
    expect(audio.codec_name).toBe("aac");
    expect(Math.min(video.width!, video.height!)).toBeLessThanOrEqual(720);
    expect(Number(stored.format.duration)).toBeCloseTo(3, 0);
  }, 120_000);

  test("a truncated clip is taken, then refused in the background, the reason in its `video`", async () => {
    const token = tokenFor(createUser(db).id);
    const folder = (
      await call("POST", "/folders", {
        token,
        body: { name: "Clips", recipients: [{ name: "Mum", email: "mum@example.com" }] },
      })
    ).json as { id: number };
    const whole = fs.readFileSync(clip1080p(clips));
    const form = new FormData();
    form.append("title", "Cut short");
    const half = new Uint8Array(whole.subarray(0, Math.floor(whole.length / 2)));
    form.append("files", new Blob([half]), "IMG_0043.mp4");
    const uploaded = await call("POST", `/folders/${folder.id}/upload`, { token, body: form });
    expect(uploaded.json).toMatchObject({ type: "video", video: { status: "preparing" } });
    const rowOf = (id: number) =>
      db.select().from(contentItems).where(eq(contentItems.id, id)).get()!;
    const [clipKey] = rowOf(uploaded.json.id).filePaths;
    expect(fs.existsSync(storedPath(clipKey!))).toBe(true);
    let item = uploaded.json;
    const deadline = Date.now() + 60_000;
    while (item.video.status === "preparing") {
      expect(Date.now(), "still preparing").toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 250));
      const page = await call("GET", `/folders/${folder.id}`, { token });
      item = page.json.items[0];
    }
    expect(item.video).toMatchObject({ status: "failed", error: expect.any(String) });
    expect(item.video.error.length).toBeGreaterThan(10);
    // The clip as uploaded is released: nothing of it stays on disk.
    expect(rowOf(item.id).filePaths).toEqual([]);
    await waitUntil(() => !fs.existsSync(storedPath(clipKey!)), 5_000, "the clip released");
  }, 90_000);

  test("a file that is not a clip, sent as a video, is refused with 415 and nothing is kept", async () => {
    const token = tokenFor(createUser(db).id);
    const folder = (
      await call("POST", "/folders", {
        token,
        body: { name: "Clips", recipients: [{ name: "Mum", email: "mum@example.com" }] },
      })
    ).json as { id: number };
    const form = new FormData();
    form.append("files", await png("#123"), "holiday.mp4");
    const refused = await call("POST", `/folders/${folder.id}/upload?type=video`, {
      token,
      body: form,
    });
    expect(refused.status).toBe(415);
    expect(refused.json.error.message).toBe(
      '"holiday.mp4" is not an allowed video type. Videos must be MP4, MOV or WebM.',
    );
    const items = await call("GET", `/folders/${folder.id}`, { token });
    expect(items.json.items).toEqual([]);
  });
});
