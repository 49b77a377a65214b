import fs from "node:fs";
import path from "node:path";
import { zipSync } from "fflate";
import sharp from "sharp";
import { afterAll, describe, expect, test } from "vitest";
import { waitUntil } from "../support/integration";
import { startPreviewPages } from "../support/preview-pages";
import { startSaveByEmailWorld } from "../support/save-by-email-world";

/**
 * Issue 38, what mail becomes, with real parts (the production build and its
 * SMTP receiver, a DNS server, an SMTP sink and a web page server on
 * loopback): files, a photo stripped of its metadata, an HTML-only message,
 * and a link whose preview is fetched (docs/decisions/0158-save-by-email.md).
 * Previews are on for this server (the tests' set-up turns them off) and may
 * fetch from loopback, a test-only setting refused in production, hence
 * NODE_ENV=test. Needs `npm run build` first.
 */
const pages = await startPreviewPages();
afterAll(() => pages.close());
const world = await startSaveByEmailWorld({
  NODE_ENV: "test",
  LINK_PREVIEWS: "on",
  LINK_PREVIEW_ALLOW_LOOPBACK: "true",
});
const { folder, address, itemsOf, smtpSend } = world;

const pdf = Buffer.from(
  "%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n",
  "latin1",
);

const docx = Buffer.from(
  zipSync({
    "[Content_Types].xml": Buffer.from(
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ),
    "word/document.xml": Buffer.from(
      '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Menu</w:t></w:r></w:p></w:body></w:document>',
    ),
  }),
);

/** Items added to Ada's folder while `send` runs. */
async function added(send: () => Promise<unknown>) {
  const before = itemsOf(folder.id).length;
  await send();
  return itemsOf(folder.id).slice(before);
}

/** A stored file, read back from the server's storage directory. */
function storedFile(key: string) {
  return fs.readFileSync(path.join(world.server.dataDir, "uploads", key.slice(0, 2), key));
}

describe("what mail becomes", () => {
  test("a PDF and a Word file become one file item", async () => {
    const items = await added(() =>
      smtpSend({
        from: "Ada <ada@family.test>",
        to: address,
        subject: "Fwd: The menu",
        text: "",
        attachments: [
          { filename: "menu.pdf", content: pdf, contentType: "application/pdf" },
          {
            filename: "menu.docx",
            content: docx,
            contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
          },
        ],
      }),
    );
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      type: "file",
      title: "The menu",
      fileNames: ["menu.pdf", "menu.docx"],
      mimeTypes: [
        "application/pdf",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
      ],
      fileSizes: [pdf.length, docx.length],
    });
    expect(storedFile(items[0]!.filePaths[0]!)).toEqual(pdf);
  });

  test("a photo with its camera's metadata and GPS position is stored re-encoded, without them", async () => {
    const photo = await sharp({
      create: { width: 64, height: 48, channels: 3, background: { r: 20, g: 90, b: 160 } },
    })
      .jpeg()
      .withExif({
        IFD0: { Make: "PhoneCam", Model: "Secret 1" },
        IFD3: { GPSLatitudeRef: "N", GPSLatitude: "48/1 51/1 24/1" },
      })
      .toBuffer();
    const sent = await sharp(photo).metadata();
    expect(sent.exif?.toString("latin1")).toContain("PhoneCam");

    const items = await added(() =>
      smtpSend({
        from: "Ada <ada@family.test>",
        to: address,
        subject: "Where we were",
        text: "",
        attachments: [{ filename: "beach.jpg", content: photo, contentType: "image/jpeg" }],
      }),
    );
    expect(items.map((item) => item.type)).toEqual(["photo"]);
    const stored = storedFile(items[0]!.filePaths[0]!);
    expect(stored.equals(photo)).toBe(false);
    const metadata = await sharp(stored).metadata();
    expect(metadata).toMatchObject({ width: 64, height: 48 });
    expect(metadata.exif).toBeUndefined();
    expect(metadata.xmp).toBeUndefined();
    expect(stored.includes("PhoneCam")).toBe(false);
  });

  test("an HTML-only message becomes a musing of its text", async () => {
    const items = await added(() =>
      smtpSend({
        from: "Ada <ada@family.test>",
        to: address,
        subject: "Shopping",
        html: "<html><body><p>Lentils, <b>carrots</b></p><p>and bay leaves</p></body></html>",
      }),
    );
    expect(items.map((item) => [item.type, item.title, item.note])).toEqual([
      ["musing", "Shopping", "Lentils, carrots\n\nand bay leaves"],
    ]);
  });

  test("an HTML-only message's link becomes a link item, its words the comment with the address written out", async () => {
    const url = `${pages.origin}/article/stew`;
    const items = await added(() =>
      smtpSend({
        from: "Ada <ada@family.test>",
        to: address,
        subject: "Stew",
        html: `<p>For Sunday, <a href="${url}">the stew</a>.</p><p>Love, Ada</p>`,
      }),
    );
    expect(items.map((item) => [item.type, item.urls, item.commentText])).toEqual([
      ["link", [url], `For Sunday, the stew (${url}).\n\nLove, Ada`],
    ]);
  });

  test("a saved link gets its preview fetched", async () => {
    const url = `${pages.origin}/article/soup`;
    const items = await added(() =>
      smtpSend({
        from: "Ada <ada@family.test>",
        to: address,
        subject: "Soup",
        text: `Look: ${url}`,
      }),
    );
    expect(items).toMatchObject([{ type: "link", urls: [url], previewUrl: url }]);
    const current = () => itemsOf(folder.id).find((item) => item.id === items[0]!.id)!;
    await waitUntil(() => current().previewStatus === "ready", 10_000, "the link's preview");
    expect(current()).toMatchObject({
      previewTitle: "soup: the long read",
      previewSiteName: "Example Gazette",
    });
  });
});
