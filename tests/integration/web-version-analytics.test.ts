import sharp from "sharp";
import { describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { startSmtpSink } from "../support/integration";

/**
 * A send through a real SMTP server on loopback, read back with mailparser,
 * then the links in the received message followed through the real route
 * loaders: the web version (and its photo), the open image and the click
 * redirect. The server address must be in the environment before the app's
 * modules read it, so they are imported after the sink starts.
 */
const sink = await startSmtpSink();
const app = await loadApp();

async function loadApp() {
  const [
    { db },
    schema,
    sending,
    drizzle,
    { storage },
    webRoute,
    fileRoute,
    openRoute,
    clickRoute,
  ] = await Promise.all([
    import("~/platform/db.server"),
    import("#db/schema"),
    import("~/modules/sending/sending.server"),
    import("drizzle-orm"),
    import("~/platform/storage.server"),
    import("~/routes/v.$code"),
    import("~/routes/v-files.$code.$itemId.$index"),
    import("~/routes/t.o.$code"),
    import("~/routes/t.c.$code"),
  ]);
  return { db, schema, sending, drizzle, storage, webRoute, fileRoute, openRoute, clickRoute };
}

let counter = 0;

/** A verified sender (free or Premium) whose folder has a link and a photo, sent to two people. */
async function sendIssue(tier: "free" | "premium") {
  const { db, schema } = app;
  counter += 1;
  const user = createUser(db, {
    subscriptionTier: tier,
    subscriptionStatus: tier === "premium" ? "active" : "inactive",
  });
  const recipients = [`mum${counter}@example.com`, `dad${counter}@example.com`];
  const folder = createFolder(db, user.id, {
    recipients: recipients.map((email, index) => ({ name: `R${index}`, email })),
  });
  const jpeg = await sharp({ create: { width: 20, height: 20, channels: 3, background: "#00f" } })
    .jpeg()
    .toBuffer();
  const { key } = await app.storage.put(
    (async function* () {
      yield jpeg;
    })(),
  );
  db.insert(schema.contentItems)
    .values([
      {
        folderId: folder.id,
        type: "link",
        title: "A good read",
        urls: ["https://example.com/story"],
        addComment: true,
        commentText: "You will like this",
        sortOrder: 0,
      },
      {
        folderId: folder.id,
        type: "photo",
        title: "Holiday",
        filePaths: [key],
        thumbnailPaths: [""],
        fileNames: ["beach.jpg"],
        fileSizes: [jpeg.length],
        mimeTypes: ["image/jpeg"],
        addComment: true,
        commentText: "Sunny",
        sortOrder: 1,
      },
    ])
    .run();
  await app.sending.sendNow(user.id, folder.id);
  const ledger = db
    .select()
    .from(schema.sendLedger)
    .where(app.drizzle.eq(schema.sendLedger.folderId, folder.id))
    .get()!;
  return { user, folder, recipients, ledger, jpeg };
}

function linkIn(html: string, pattern: RegExp) {
  const match = pattern.exec(html);
  return match ? match[0].replaceAll("&amp;", "&") : null;
}

const args = (url: string, params: Record<string, string>) =>
  ({ request: new Request(url), params, context: {} }) as never;

/** The web version's loader: its status, headers and page data (a code that is not ours throws its 404). */
async function openWebVersion(url: string) {
  const path = new URL(url).pathname;
  try {
    const answer = await app.webRoute.loader(args(url, { code: path.split("/")[2]! }));
    return {
      status: answer.init?.status ?? 200,
      headers: new Headers(answer.init?.headers),
      data: answer.data,
    };
  } catch (thrown) {
    if (!(thrown instanceof Response)) throw thrown;
    return { status: thrown.status, headers: thrown.headers, data: null };
  }
}

function deliveryOf(ledgerId: number, email: string) {
  const { db, schema, drizzle } = app;
  return db
    .select()
    .from(schema.emailDeliveries)
    .where(
      drizzle.and(
        drizzle.eq(schema.emailDeliveries.ledgerId, ledgerId),
        drizzle.eq(schema.emailDeliveries.recipientEmail, email),
      ),
    )
    .get()!;
}

describe("the web version", () => {
  test("each message links to its recipient's copy, which shows the issue and its photo, and nobody else", async () => {
    const { recipients, ledger, jpeg, folder } = await sendIssue("free");
    const [mum, dad] = recipients as [string, string];
    const mumMessage = sink.to(mum)[0]!;
    const webUrl = linkIn(String(mumMessage.html), /http[^"]+\/v\/[A-Za-z0-9_.-]+/)!;
    expect(webUrl).toBeTruthy();
    expect(mumMessage.html).toContain("View in your browser");
    const dadUrl = linkIn(String(sink.to(dad)[0]!.html), /http[^"]+\/v\/[A-Za-z0-9_.-]+/)!;
    expect(dadUrl).not.toBe(webUrl);

    const page = await openWebVersion(webUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get("X-Robots-Tag")).toContain("noindex");
    const html = JSON.stringify(page.data);
    expect(html).toContain("A good read");
    expect(html).toContain(mum);
    expect(html).not.toContain(dad);
    expect(html).not.toContain("cid:");

    const photoPath = /\/v-files\/([^/"]+)\/(\d+)\/(\d+)/.exec(html)!;
    const photo = (await app.fileRoute.loader(
      args(`http://localhost${photoPath[0]}`, {
        code: photoPath[1]!,
        itemId: photoPath[2]!,
        index: photoPath[3]!,
      }),
    )) as Response;
    expect(photo.status).toBe(200);
    expect(photo.headers.get("Accept-Ranges")).toBe("bytes");
    expect(Buffer.from(await photo.arrayBuffer())).toEqual(jpeg);
    // A player's range request (a video's start or a seek) gets its bytes alone.
    const part = (await app.fileRoute.loader({
      request: new Request(`http://localhost${photoPath[0]}`, { headers: { Range: "bytes=2-11" } }),
      params: { code: photoPath[1]!, itemId: photoPath[2]!, index: photoPath[3]! },
      context: {},
    } as never)) as Response;
    expect(part.status).toBe(206);
    expect(part.headers.get("Content-Range")).toBe(`bytes 2-11/${jpeg.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(jpeg.subarray(2, 12));

    // A tampered code is refused like a missing one.
    expect((await openWebVersion(`${webUrl}x`)).status).toBe(404);

    // Unsubscribing from the folder ends Mum's copy, not Dad's.
    app.db
      .insert(app.schema.folderRecipientStates)
      .values({ folderId: folder.id, email: mum, mailbox: mum, status: "unsubscribed" })
      .run();
    const left = await openWebVersion(webUrl);
    expect(left).toMatchObject({ status: 404, data: { state: "left" } });
    expect(JSON.stringify(left.data)).not.toContain("A good read");
    expect((await openWebVersion(dadUrl)).status).toBe(200);

    // The sender deleting the issue ends every copy.
    app.db
      .update(app.schema.sendLedger)
      .set({ deletedAt: new Date() })
      .where(app.drizzle.eq(app.schema.sendLedger.id, ledger.id))
      .run();
    expect(await openWebVersion(dadUrl)).toMatchObject({ status: 404, data: { state: "gone" } });
  });
});

describe("delivery analytics", () => {
  test("a free sender's mail carries no open image, no click links and no tracking sentence", async () => {
    const { recipients } = await sendIssue("free");
    const html = String(sink.to(recipients[0]!)[0]!.html);
    expect(html).not.toContain("/t/o/");
    expect(html).not.toContain("/t/c/");
    expect(html).not.toContain("sees when this e-mail is opened");
    expect(html).toContain('href="https://example.com/story"');
  });

  test("a Premium sender's mail counts opens and clicks, redirects only to the issue's own links", async () => {
    const { recipients, ledger, folder } = await sendIssue("premium");
    const mum = recipients[0]!;
    const html = String(sink.to(mum)[0]!.html);
    expect(html).toContain("sees when this e-mail is opened and which links are clicked");
    const pixel = linkIn(html, /http[^"]+\/t\/o\/[A-Za-z0-9_.-]+/)!;
    const click = linkIn(html, /http[^"]+\/t\/c\/[^"]+/)!;
    expect(pixel).toBeTruthy();
    expect(click).toContain(encodeURIComponent("https://example.com/story"));
    expect(html).not.toContain('href="https://example.com/story"');

    const pixelResponse = (await app.openRoute.loader(
      args(pixel, { code: new URL(pixel).pathname.split("/")[3]! }),
    )) as Response;
    expect(pixelResponse.headers.get("Content-Type")).toBe("image/gif");
    expect(deliveryOf(ledger.id, mum)).toMatchObject({ openCount: 1, clickCount: 0 });
    expect(deliveryOf(ledger.id, mum).lastOpenedAt).toBeInstanceOf(Date);

    const clickCode = new URL(click).pathname.split("/")[3]!;
    const followed = (await app.clickRoute.loader(args(click, { code: clickCode }))) as Response;
    expect(followed.status).toBe(302);
    expect(followed.headers.get("Location")).toBe("https://example.com/story");
    expect(deliveryOf(ledger.id, mum).clickCount).toBe(1);

    // The same signed link with an address that is not in the issue: refused, not redirected.
    const foreign = new URL(click);
    foreign.searchParams.set("url", "https://evil.example/phish");
    const refused = (await app.clickRoute.loader(
      args(foreign.toString(), { code: clickCode }),
    )) as Response;
    expect(refused.status).toBe(404);
    expect(refused.headers.get("Location")).toBeNull();
    expect(deliveryOf(ledger.id, mum).clickCount).toBe(1);

    const after = app.db
      .select()
      .from(app.schema.folders)
      .where(app.drizzle.eq(app.schema.folders.id, folder.id))
      .get()!;
    expect(after).toMatchObject({ totalOpens: 1, totalClicks: 1, engagementScore: 0.5 });

    // After unsubscribing, nothing more is recorded.
    app.db
      .insert(app.schema.folderRecipientStates)
      .values({ folderId: folder.id, email: mum, mailbox: mum, status: "unsubscribed" })
      .run();
    await app.openRoute.loader(args(pixel, { code: new URL(pixel).pathname.split("/")[3]! }));
    expect(deliveryOf(ledger.id, mum).openCount).toBe(1);
  });
});

describe("recipients' links are bounded", () => {
  test("a link used too often waits, an open image beyond it is shown and not counted, and forged codes count nothing", async () => {
    const { consumeRateLimit, peekRateLimit } = await import("~/platform/rate-limit.server");
    const { RECIPIENT_LINK_USES, recipientLinkKey } = await import(
      "~/modules/sending/recipient-link-limit.server"
    );
    const { recipients, ledger } = await sendIssue("premium");
    const mum = recipients[0]!;
    const html = String(sink.to(mum)[0]!.html);
    const webUrl = linkIn(html, /http[^"]+\/v\/[A-Za-z0-9_.-]+/)!;
    const pixel = linkIn(html, /http[^"]+\/t\/o\/[A-Za-z0-9_.-]+/)!;
    const click = linkIn(html, /http[^"]+\/t\/c\/[^"]+/)!;
    const codeOf = (url: string) => new URL(url).pathname.split("/")[url.includes("/v/") ? 2 : 3]!;

    // Spend all but one use of each link, as a script hammering them would.
    for (const [purpose, url] of [
      ["web", webUrl],
      ["open", pixel],
      ["click", click],
    ] as const) {
      const key = recipientLinkKey(purpose, codeOf(url))!;
      await consumeRateLimit(RECIPIENT_LINK_USES, key, RECIPIENT_LINK_USES.points - 1);
    }

    expect((await openWebVersion(webUrl)).status).toBe(200);
    const refused = await openWebVersion(webUrl);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toMatch(/^\d+$/);
    expect(refused.data).toMatchObject({ message: "Please try again in 10 minutes." });

    const openImage = async () =>
      (await app.openRoute.loader(args(pixel, { code: codeOf(pixel) }))) as Response;
    expect((await openImage()).status).toBe(200);
    expect(deliveryOf(ledger.id, mum).openCount).toBe(1);
    const beyond = await openImage();
    expect(beyond.headers.get("Content-Type")).toBe("image/gif");
    expect(deliveryOf(ledger.id, mum).openCount).toBe(1);

    const follow = async () =>
      (await app.clickRoute.loader(args(click, { code: codeOf(click) }))) as Response;
    expect((await follow()).status).toBe(302);
    expect((await follow()).status).toBe(429);
    expect(deliveryOf(ledger.id, mum).clickCount).toBe(1);

    // A forged code is answered 404 and leaves no count behind.
    const forged = `${codeOf(webUrl)}x`;
    expect(recipientLinkKey("web", forged)).toBeNull();
    expect((await openWebVersion(`${webUrl}x`)).status).toBe(404);
    expect(await peekRateLimit(RECIPIENT_LINK_USES, `web:${forged}`)).toEqual({
      allowed: true,
      remaining: RECIPIENT_LINK_USES.points,
    });
  });
});
