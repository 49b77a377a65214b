import sharp from "sharp";
import { afterAll, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { startSmtpSink } from "../support/integration";
import { PICTURE_COMMENT, startPreviewPages } from "../support/preview-pages";

/**
 * A link saved the ordinary way gets its preview from a page server on
 * loopback (allowed by the test-only setting), and the folder's e-mail,
 * received by a real SMTP server, shows the card with its picture inline.
 */
const sink = await startSmtpSink();
process.env.LINK_PREVIEW_ALLOW_LOOPBACK = "true";
const pages = await startPreviewPages();
afterAll(() => pages.close());
const app = await loadApp();

async function loadApp() {
  const [{ db }, schema, { sendNow }, { createTextItem }, { runPreviewPass }, { storage }] =
    await Promise.all([
      import("~/platform/db.server"),
      import("#db/schema"),
      import("~/modules/sending/sending.server"),
      import("~/modules/items/items.server"),
      import("~/modules/items/link-previews.server"),
      import("~/platform/storage.server"),
    ]);
  return { db, schema, sendNow, createTextItem, runPreviewPass, storage };
}

test("a sent newsletter carries the link's preview card with its picture inline by cid", async () => {
  const { db, schema, sendNow, createTextItem, runPreviewPass, storage } = app;
  const user = createUser(db);
  const folder = createFolder(db, user.id, {
    recipients: [{ name: "Grace", email: "grace@example.net" }],
  });
  const item = createTextItem(user.id, folder.id, {
    type: "link",
    title: "The tide article",
    urls: [`${pages.origin}/article/tides`],
    addComment: true,
    askQuestion: false,
    commentText: "For the beach",
    questionText: "",
    responseExpectation: "na",
  });
  // The setting comes from the environment: no option passed here.
  await runPreviewPass();
  const ready = db
    .select()
    .from(schema.contentItems)
    .all()
    .find((row) => row.id === item.id);
  expect(ready?.previewStatus).toBe("ready");
  const pictureKey = ready?.previewImageKey ?? "";
  expect(await storage.stat(pictureKey)).not.toBeNull();

  await sendNow(user.id, folder.id);
  expect(sink.messages).toHaveLength(1);
  const message = sink.messages[0]!;
  const cid = `preview-${item.id}@thoughtfully`;
  const picture = message.attachments.find((attachment) => attachment.cid === cid);
  expect(picture?.contentType).toBe("image/jpeg");
  expect(picture?.contentDisposition).toBe("inline");
  // mailparser swaps each `cid:` reference for its attachment's bytes: the
  // HTML did reference this picture by its cid.
  expect(message.html).toContain(
    `src="data:image/jpeg;base64,${picture!.content.toString("base64")}"`,
  );
  expect(message.html).toContain("Example Gazette");
  expect(message.html).toContain("Everything about tides, in one page.");
  expect(message.text).toContain("Everything about tides, in one page.");
  const metadata = await sharp(picture!.content).metadata();
  expect(metadata.width).toBe(600);
  expect(picture!.content.includes(Buffer.from(PICTURE_COMMENT))).toBe(false);
  // Sent: the picture is kept with the other files for the sent archive.
  expect(await storage.stat(pictureKey)).not.toBeNull();
});
