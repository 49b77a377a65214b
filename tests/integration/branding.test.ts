import sharp from "sharp";
import { describe, expect, test } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import { startSmtpSink } from "../support/integration";

/**
 * Premium branding in a real send: the send engine, a real SMTP server on
 * loopback, the message read back with mailparser. Modules that read the
 * server's address are imported after the sink starts.
 */
const sink = await startSmtpSink();
const app = await loadApp();

async function loadApp() {
  const [{ db }, schema, sending, branding, themes, drizzle] = await Promise.all([
    import("~/platform/db.server"),
    import("#db/schema"),
    import("~/modules/sending/sending.server"),
    import("~/modules/sending/branding.server"),
    import("#emails/newsletter-themes"),
    import("drizzle-orm"),
  ]);
  return { db, schema, sending, branding, themes, drizzle };
}

/** A Premium sender whose folder for `recipient` holds one note. */
function premiumSenderWithFolder(recipient: string) {
  const user = createUser(app.db, { subscriptionTier: "premium", subscriptionStatus: "active" });
  const folder = createFolder(app.db, user.id, { recipients: [{ name: "Mum", email: recipient }] });
  createItem(app.db, folder.id);
  return { user, folder };
}

const banner = () =>
  sharp({ create: { width: 1800, height: 600, channels: 3, background: "#7a9e7e" } })
    .jpeg()
    .toBuffer();

describe("branding in a sent newsletter", () => {
  test("a Premium sender's template, accent and header image arrive; the image once, inline by cid", async () => {
    const { user, folder } = premiumSenderWithFolder("mum-branded@example.com");
    app.branding.saveLook(user, { template: "postcard", accentColor: "#7c2d12" });
    await app.branding.saveHeaderImage(user, await banner());

    expect(await app.sending.sendNow(user.id, folder.id)).toEqual({ messages: 1, pending: 0 });
    const [message] = sink.to("mum-branded@example.com");
    // mailparser turns cid: references into data: URLs; the raw HTML part has the reference.
    const html = String(message!.html);
    expect(html).toMatch(
      /<img src="data:image\/jpeg;base64,[^"]+" alt(="")? width="550"[^>]*>\s*<h1/,
    );
    expect(html).toContain("#7c2d12");
    const headers = message!.attachments.filter(
      (attachment) => attachment.cid === app.themes.HEADER_IMAGE_CID,
    );
    expect(headers).toHaveLength(1);
    expect(headers[0]!.contentDisposition).toBe("inline");
    const image = await sharp(headers[0]!.content).metadata();
    expect(image.width).toBe(1200);
    expect(image.height).toBe(400);
    expect(headers[0]!.content.length).toBeLessThanOrEqual(100 * 1024);
  });

  test("a free sender's newsletter has the classic look, whatever was stored", async () => {
    const { user, folder } = premiumSenderWithFolder("mum-lapsed@example.com");
    app.branding.saveLook(user, { template: "letter", accentColor: "#1e3a8a" });
    await app.branding.saveHeaderImage(user, await banner());
    app.db
      .update(app.schema.users)
      .set({ subscriptionTier: "free", subscriptionStatus: "canceled" })
      .where(app.drizzle.eq(app.schema.users.id, user.id))
      .run();

    await app.sending.sendNow(user.id, folder.id);
    const [message] = sink.to("mum-lapsed@example.com");
    expect(String(message!.html)).not.toContain("#1e3a8a");
    expect(String(message!.html)).not.toContain(app.themes.HEADER_IMAGE_CID);
    expect(message!.attachments).toEqual([]);
  });
});
