import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { beforeAll, beforeEach, describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { securityEvents, securityRejections } from "#db/schema";
import { countedStream } from "#server/body-limit";
import { issueCsrfToken } from "~/modules/auth/csrf.server";
import { storedKeys } from "~/modules/files/stored-files.server";
import { UPLOAD_FORM_MAX_PARTS } from "~/modules/files/upload-kinds";
import { UploadRejectedError } from "~/modules/files/upload-rejected.server";
import { UploadDetailsSchema } from "~/modules/items/item-validation";
import { createUploadItem } from "~/modules/items/items.server";
import { db } from "~/platform/db.server";
import { storage } from "~/platform/storage.server";
import { parseUploadForm, withUpload } from "./uploads.server";

const MB = 1024 * 1024;
const storageDir = process.env.STORAGE_DIR!;
let userId: number;

beforeAll(() => {
  userId = createUser(db, { email: "uploader@example.com", emailVerified: true }).id;
});

beforeEach(() => {
  fs.rmSync(storageDir, { recursive: true, force: true });
});

/** Every file under STORAGE_DIR, partial ones included. */
function filesOnDisk() {
  if (!fs.existsSync(storageDir)) return [];
  return fs
    .readdirSync(storageDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

function pathOfKey(key: string) {
  return path.join(storageDir, key.slice(0, 2), key);
}

function readKey(key: string) {
  return fs.readFileSync(pathOfKey(key));
}

/** Node's Buffer types do not satisfy BlobPart; a plain Uint8Array view does. */
function part(bytes: Uint8Array | string): BlobPart {
  return typeof bytes === "string" ? bytes : new Uint8Array(bytes);
}

function uploadRequest(files: File[], fields: Record<string, string> = {}) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const file of files) form.append("files", file);
  return new Request("http://localhost/folders/1/items/new", {
    method: "POST",
    body: form,
    headers: { "user-agent": "vitest" },
  });
}

async function rejection(promise: Promise<unknown>) {
  const error = await promise.then(
    () => {
      throw new Error("expected the upload to be rejected");
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UploadRejectedError);
  return error as UploadRejectedError;
}

function rejectionsFor(filename: string) {
  return db
    .select()
    .from(securityRejections)
    .where(eq(securityRejections.originalFilename, filename))
    .all();
}

function suspiciousEventsFor(filename: string) {
  return db
    .select()
    .from(securityEvents)
    .where(eq(securityEvents.eventType, "suspicious_activity"))
    .all()
    .filter((event) => event.details?.filename === filename);
}

/** GPS IFD pointer tag (0x8825) in either byte order. */
function hasGpsTag(exif: Buffer) {
  return exif.includes(Buffer.from([0x88, 0x25])) || exif.includes(Buffer.from([0x25, 0x88]));
}

async function jpegWithGps(width: number, height: number, orientation?: number) {
  let image = sharp({
    create: { width, height, channels: 3, background: { r: 200, g: 120, b: 40 } },
  }).jpeg();
  if (orientation) image = image.withMetadata({ orientation });
  return image
    .withExif({
      IFD0: { Make: "TestCam", Model: "Leaky 1", Copyright: "Someone" },
      IFD3: {
        GPSLatitudeRef: "N",
        GPSLatitude: "51/1 30/1 0/1",
        GPSLongitudeRef: "W",
        GPSLongitude: "0/1 7/1 0/1",
      },
    })
    .toBuffer();
}

const ELF = Buffer.concat([
  Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00]),
  Buffer.alloc(8),
  Buffer.from([0x02, 0x00, 0x3e, 0x00, 0x01, 0x00, 0x00, 0x00]),
  Buffer.alloc(2000, 0x90),
]);
const MZ = Buffer.concat([
  Buffer.from("MZ"),
  Buffer.alloc(58),
  Buffer.from([0x80, 0, 0, 0]),
  Buffer.alloc(64),
  Buffer.from("PE\0\0"),
  Buffer.alloc(2000),
]);

function minimalPdf() {
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
  ];
  let body = "%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n";
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(Buffer.byteLength(body, "latin1"));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body, "latin1");
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, "0")} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, "latin1");
}

/** A stored (uncompressed) zip written by hand: local headers, central directory, end record. */
function zip(entries: [string, string][]) {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of entries) {
    const data = Buffer.from(text);
    const nameBytes = Buffer.from(name);
    const crc = zlib.crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    locals.push(local, nameBytes, data);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

function minimalDocxEntries(): [string, string][] {
  return [
    [
      "[Content_Types].xml",
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ],
    [
      "word/document.xml",
      '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Hello</w:t></w:r></w:p></w:body></w:document>',
    ],
  ];
}

function minimalDocx() {
  return zip(minimalDocxEntries());
}

describe("unverified accounts", () => {
  test("store no file: the first one refuses the request, text fields are still read", async () => {
    const unverified = createUser(db, { email: "throwaway@example.com", emailVerified: false }).id;
    const photo = await sharp({
      create: { width: 8, height: 8, channels: 3, background: "#ccc" },
    })
      .jpeg()
      .toBuffer();
    for (const kind of ["photo", "file"] as const) {
      const error = await rejection(
        parseUploadForm(
          uploadRequest([new File([part(photo)], "a.jpg", { type: "image/jpeg" })], {
            title: "Mine",
          }),
          kind,
          unverified,
        ),
      );
      expect(error).toMatchObject({ code: "EMAIL_NOT_VERIFIED", status: 403 });
      expect(error.fieldsRead?.get("title")).toBe("Mine");
    }
    expect(filesOnDisk()).toEqual([]);

    const { stored } = await parseUploadForm(
      uploadRequest([], { title: "Text" }),
      "photo",
      unverified,
    );
    expect(stored).toEqual([]);
  });
});

describe("photos", () => {
  test("a JPEG with GPS is resized to 1600 px, stripped of EXIF and gets a thumbnail", async () => {
    const source = await jpegWithGps(2400, 1200);
    const sourceMeta = await sharp(source).metadata();
    expect(sourceMeta.exif).toBeDefined();
    expect(hasGpsTag(sourceMeta.exif!)).toBe(true);

    const { formData, stored } = await parseUploadForm(
      uploadRequest([new File([part(source)], "IMG_0001.JPG", { type: "image/jpeg" })], {
        title: "Holiday",
      }),
      "photo",
      userId,
    );

    expect(formData.get("title")).toBe("Holiday");
    expect(stored).toHaveLength(1);
    const [upload] = stored;
    expect(formData.getAll("files")).toEqual([upload!.key]);
    expect(upload).toMatchObject({ name: "IMG_0001.JPG", mimeType: "image/jpeg" });
    expect(upload!.key).toMatch(/^[0-9a-f]{32}$/);

    const final = readKey(upload!.key);
    expect(upload!.size).toBe(final.length);
    const meta = await sharp(final).metadata();
    expect(meta).toMatchObject({ format: "jpeg", width: 1600, height: 800 });
    expect(meta.exif).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect(final.includes(Buffer.from("TestCam"))).toBe(false);

    const thumb = await sharp(readKey(upload!.thumbnailKey!)).metadata();
    expect(thumb).toMatchObject({ format: "jpeg", width: 320, height: 160 });
    expect(thumb.exif).toBeUndefined();

    // The original upload is gone: only the final image and its thumbnail remain.
    expect(filesOnDisk().sort()).toEqual(storedKeys(stored).map(pathOfKey).sort());
  });

  test("EXIF orientation is applied to the pixels", async () => {
    const source = await jpegWithGps(400, 200, 6);
    expect((await sharp(source).metadata()).orientation).toBe(6);
    const { stored } = await parseUploadForm(
      uploadRequest([new File([part(source)], "sideways.jpeg", { type: "image/jpeg" })]),
      "photo",
      userId,
    );
    const meta = await sharp(readKey(stored[0]!.key)).metadata();
    expect(meta).toMatchObject({ width: 200, height: 400 });
    expect(meta.orientation).toBeUndefined();
  });

  test("a PNG with transparency stays PNG; its name follows the stored type", async () => {
    const png = await sharp({
      create: {
        width: 300,
        height: 200,
        channels: 4,
        background: { r: 0, g: 0, b: 255, alpha: 0.5 },
      },
    })
      .png()
      .toBuffer();
    const { stored } = await parseUploadForm(
      // The browser's claim and the name are wrong; the bytes decide.
      uploadRequest([new File([part(png)], "logo.gif", { type: "image/gif" })]),
      "photo",
      userId,
    );
    expect(stored[0]).toMatchObject({ name: "logo.png", mimeType: "image/png" });
    const meta = await sharp(readKey(stored[0]!.key)).metadata();
    expect(meta).toMatchObject({ format: "png", width: 300, height: 200, hasAlpha: true });
    expect((await sharp(readKey(stored[0]!.thumbnailKey!)).metadata()).format).toBe("jpeg");
  });

  test("a WebP becomes a JPEG", async () => {
    const webp = await sharp({
      create: { width: 100, height: 80, channels: 3, background: "#336699" },
    })
      .webp()
      .toBuffer();
    const { stored } = await parseUploadForm(
      uploadRequest([new File([part(webp)], "pic.webp", { type: "image/webp" })]),
      "photo",
      userId,
    );
    expect(stored[0]).toMatchObject({ name: "pic.jpg", mimeType: "image/jpeg" });
    expect(await sharp(readKey(stored[0]!.key)).metadata()).toMatchObject({
      format: "jpeg",
      width: 100,
      height: 80,
    });
  });

  test("an iPhone's HEIC becomes a JPEG without its EXIF and GPS", async () => {
    const heic = fs.readFileSync(path.resolve("tests/fixtures/photo-with-gps.heic"));
    const original = await sharp(heic).metadata();
    expect(original).toMatchObject({ format: "heif", compression: "hevc" });
    expect(original.exif).toBeDefined();
    const { stored } = await parseUploadForm(
      // Named and typed as the phone's share sheet may send it: only the bytes count.
      uploadRequest([
        new File([part(heic)], "IMG_2041.HEIC", { type: "application/octet-stream" }),
      ]),
      "photo",
      userId,
    );
    expect(stored[0]).toMatchObject({ name: "IMG_2041.jpg", mimeType: "image/jpeg" });
    for (const key of [stored[0]!.key, stored[0]!.thumbnailKey!]) {
      const meta = await sharp(readKey(key)).metadata();
      expect(meta.format).toBe("jpeg");
      expect(meta.exif).toBeUndefined();
      expect(meta.xmp).toBeUndefined();
      expect(meta.icc).toBeUndefined();
      expect(readKey(key).includes("iPhone")).toBe(false);
    }
    expect(await sharp(readKey(stored[0]!.key)).metadata()).toMatchObject({
      width: 480,
      height: 360,
    });
    // The original is gone: only the re-encoded photo and its thumbnail are stored.
    expect(filesOnDisk()).toHaveLength(2);
  });

  test("a HEIC over 50 megapixels is refused by its header, before it is decoded", async () => {
    const heic = Buffer.from(fs.readFileSync(path.resolve("tests/fixtures/photo-with-gps.heic")));
    // The image's size ('ispe') made that of a Galaxy Ultra's 200 MP photo, 16320 × 12240.
    const ispe = heic.indexOf("ispe");
    heic.writeUInt32BE(16_320, ispe + 8);
    heic.writeUInt32BE(12_240, ispe + 12);
    const error = await rejection(
      parseUploadForm(
        uploadRequest([new File([part(heic)], "IMG_2042.heic", { type: "image/heic" })]),
        "photo",
        userId,
      ),
    );
    expect(error.code).toBe("FILE_TOO_LARGE");
    expect(error.message).toBe(
      "IMG_2042.heic has too many pixels. Photos can be at most 50 megapixels.",
    );
    expect(filesOnDisk()).toHaveLength(0);
  });

  test("an HTML page named photo.jpg is refused and recorded", async () => {
    const html = "<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>";
    const error = await rejection(
      parseUploadForm(
        uploadRequest([new File([part(html)], "photo.jpg", { type: "image/jpeg" })]),
        "photo",
        userId,
      ),
    );
    expect(error.code).toBe("INVALID_FILE_TYPE");
    expect(error.message).toBe(
      '"photo.jpg" is not an allowed photo type. Photos must be JPEG, PNG, GIF, WebP or HEIC.',
    );
    // Named as the browser sent it, so the page can mark it and drop it from the choice.
    expect(error.fileName).toBe("photo.jpg");
    const [row] = rejectionsFor("photo.jpg");
    expect(row).toMatchObject({
      userId,
      claimedMimeType: "image/jpeg",
      detectedFileType: "unknown",
      threatType: "script",
      expectedHeader: "ffd8ff",
      actualHeader: Buffer.from(html).subarray(0, 16).toString("hex"),
    });
    expect(filesOnDisk()).toEqual([]);
  });

  test("an SVG is refused", async () => {
    for (const svg of [
      '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><circle r="5"/></svg>',
      '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
    ]) {
      const error = await rejection(
        parseUploadForm(
          uploadRequest([new File([part(svg)], "vector.svg", { type: "image/svg+xml" })]),
          "photo",
          userId,
        ),
      );
      expect(error.code).toBe("INVALID_FILE_TYPE");
    }
    expect(rejectionsFor("vector.svg").map((row) => row.threatType)).toEqual(["script", "script"]);
    expect(filesOnDisk()).toEqual([]);
  });

  test("plain text and a PDF are not photos", async () => {
    for (const [name, body] of [
      ["notes.png", "just some words"],
      ["scan.jpg", minimalPdf()],
    ] as const) {
      const error = await rejection(
        parseUploadForm(uploadRequest([new File([part(body)], name)]), "photo", userId),
      );
      expect(error.code).toBe("INVALID_FILE_TYPE");
    }
    expect(rejectionsFor("notes.png")[0]?.threatType).toBe("type_mismatch");
    expect(rejectionsFor("scan.jpg")[0]).toMatchObject({
      detectedFileType: "pdf",
      threatType: "type_mismatch",
    });
  });

  test("more photos than an item holds are refused and nothing is kept", async () => {
    const jpeg = await sharp({ create: { width: 10, height: 10, channels: 3, background: "#fff" } })
      .jpeg()
      .toBuffer();
    const files = [1, 2, 3, 4].map(
      (n) => new File([part(jpeg)], `p${n}.jpg`, { type: "image/jpeg" }),
    );
    const error = await rejection(parseUploadForm(uploadRequest(files), "photo", userId));
    expect(error.code).toBe("UPLOAD_FAILED");
    expect(error.message).toBe("Photo limit reached: 3 photos per item.");
    expect(filesOnDisk()).toEqual([]);
  });

  test("an oversized photo names the limit", async () => {
    const big = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(11 * MB)]);
    const error = await rejection(
      parseUploadForm(uploadRequest([new File([part(big)], "huge.jpg")]), "photo", userId),
    );
    expect(error).toMatchObject({
      code: "FILE_TOO_LARGE",
      status: 413,
      message: "huge.jpg is too large. Maximum photo size is 10MB.",
      fileName: "huge.jpg",
    });
    expect(filesOnDisk()).toEqual([]);
  });

  test("a photo over 50 megapixels is refused by its header, before decoding", async () => {
    const chunk = (type: string, data: Buffer) => {
      const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
      const framed = Buffer.alloc(body.length + 8);
      framed.writeUInt32BE(data.length, 0);
      body.copy(framed, 4);
      framed.writeUInt32BE(zlib.crc32(body), body.length + 4);
      return framed;
    };
    const header = Buffer.alloc(13);
    header.writeUInt32BE(8200, 0);
    header.writeUInt32BE(6200, 4);
    header.set([8, 2, 0, 0, 0], 8);
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk("IHDR", header),
      chunk("IDAT", zlib.deflateSync(Buffer.alloc(10))),
      chunk("IEND", Buffer.alloc(0)),
    ]);
    const error = await rejection(
      parseUploadForm(uploadRequest([new File([part(png)], "huge.png")]), "photo", userId),
    );
    expect(error.message).toContain("huge.png has too many pixels");
    expect(error.message).toContain("at most 50 megapixels");
    expect(filesOnDisk()).toEqual([]);
  });

  test("a JPEG header on garbage is refused after storing and leaves nothing", async () => {
    const fake = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(5000, 7)]);
    const error = await rejection(
      parseUploadForm(uploadRequest([new File([part(fake)], "broken.jpg")]), "photo", userId),
    );
    expect(error.code).toBe("INVALID_FILE_TYPE");
    expect(error.message).toContain('"broken.jpg" could not be read as a photo.');
    expect(rejectionsFor("broken.jpg")[0]?.threatType).toBe("malformed_image");
    expect(filesOnDisk()).toEqual([]);
  });
});

describe("files", () => {
  test("an executable named report.pdf is refused before anything is stored", async () => {
    for (const [name, bytes] of [
      ["report.pdf", ELF],
      ["invoice.pdf", MZ],
    ] as const) {
      const error = await rejection(
        parseUploadForm(
          uploadRequest([new File([part(bytes)], name, { type: "application/pdf" })]),
          "file",
          userId,
        ),
      );
      expect(error.code).toBe("INVALID_FILE_TYPE");
      expect(error.status).toBe(415);
      expect(error.message).toBe(
        `"${name}" is not an allowed file type. Files must be PDF or Word documents (.pdf, .doc or .docx).`,
      );
    }
    const [elf] = rejectionsFor("report.pdf");
    expect(elf).toMatchObject({
      userId,
      userAgent: "vitest",
      claimedMimeType: "application/pdf",
      detectedFileType: "elf",
      fileSizeBytes: ELF.length,
      expectedHeader: "25504446",
      actualHeader: ELF.subarray(0, 16).toString("hex"),
      threatType: "executable",
      threatLevel: "high",
    });
    expect(elf?.rejectionReason).toContain("elf");
    expect(rejectionsFor("invoice.pdf")[0]).toMatchObject({
      detectedFileType: "exe",
      threatType: "executable",
    });

    const [event] = suspiciousEventsFor("report.pdf");
    expect(event).toMatchObject({
      userId,
      severity: "medium",
      requestMethod: "POST",
      endpoint: "/folders/1/items/new",
    });
    expect(event?.details).toMatchObject({ filename: "report.pdf", detected: "elf" });
    expect(filesOnDisk()).toEqual([]);
  });

  test("a real PDF is accepted with its detected type", async () => {
    const pdf = minimalPdf();
    const { formData, stored } = await parseUploadForm(
      uploadRequest(
        [new File([part(pdf)], "../../Minutes.pdf", { type: "application/octet-stream" })],
        {
          title: "Minutes",
        },
      ),
      "file",
      userId,
    );
    expect(stored).toEqual([
      {
        key: formData.get("files"),
        name: "Minutes.pdf",
        size: pdf.length,
        mimeType: "application/pdf",
      },
    ]);
    expect(readKey(stored[0]!.key).equals(pdf)).toBe(true);
  });

  test("a docx (a zip with Word's content types) is accepted", async () => {
    const docx = minimalDocx();
    const { stored } = await parseUploadForm(
      uploadRequest([new File([part(docx)], "letter.docx")]),
      "file",
      userId,
    );
    expect(stored[0]).toMatchObject({
      name: "letter.docx",
      size: docx.length,
      mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    });
  });

  test("a docx whose Word parts lie beyond the first 4100 bytes is accepted", async () => {
    // LibreOffice's order: [Content_Types].xml last, after the media.
    const entries = minimalDocxEntries();
    const docx = zip([
      ["_rels/.rels", "<Relationships/>"],
      ["word/media/image1.png", "x".repeat(20_000)],
      entries[1]!,
      entries[0]!,
    ]);
    const { stored } = await parseUploadForm(
      uploadRequest([new File([part(docx)], "exported.docx")]),
      "file",
      userId,
    );
    expect(stored[0]).toMatchObject({ name: "exported.docx", size: docx.length });
    expect(filesOnDisk()).toEqual([pathOfKey(stored[0]!.key)]);
  });

  test("a plain zip renamed .docx is refused", async () => {
    const plain = zip([["readme.txt", "hello"]]);
    const error = await rejection(
      parseUploadForm(uploadRequest([new File([part(plain)], "fake.docx")]), "file", userId),
    );
    expect(error.code).toBe("INVALID_FILE_TYPE");
    expect(rejectionsFor("fake.docx")[0]?.detectedFileType).toBe("zip");
    expect(filesOnDisk()).toEqual([]);
  });

  test("an OLE container is a .doc only when named so", async () => {
    // Compound File header: signature, minor/major version, byte order, sector shift.
    const header = Buffer.alloc(4096);
    Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(header, 0);
    header.writeUInt16LE(0x3e, 24);
    header.writeUInt16LE(3, 26);
    header.writeUInt16LE(0xfffe, 28);
    header.writeUInt16LE(9, 30);
    const { stored } = await parseUploadForm(
      uploadRequest([new File([part(header)], "old.doc")]),
      "file",
      userId,
    );
    expect(stored[0]).toMatchObject({ name: "old.doc", mimeType: "application/msword" });

    const error = await rejection(
      parseUploadForm(uploadRequest([new File([part(header)], "setup.msi.pdf")]), "file", userId),
    );
    expect(error.code).toBe("INVALID_FILE_TYPE");
  });

  test("an 11 MB file is refused as too large and nothing is stored", async () => {
    const big = Buffer.concat([minimalPdf(), Buffer.alloc(11 * MB, 0x20)]);
    const error = await rejection(
      parseUploadForm(uploadRequest([new File([part(big)], "big.pdf")]), "file", userId),
    );
    expect(error).toMatchObject({
      code: "FILE_TOO_LARGE",
      status: 413,
      limitBytes: 10 * MB,
      message: "big.pdf is too large. Maximum file size is 10MB.",
    });
    expect(filesOnDisk()).toEqual([]);
  });

  test("a refused second file removes the first one already stored", async () => {
    const error = await rejection(
      parseUploadForm(
        uploadRequest([
          new File([part(minimalPdf())], "good.pdf"),
          new File([part(ELF)], "bad.pdf"),
        ]),
        "file",
        userId,
      ),
    );
    expect(error.code).toBe("INVALID_FILE_TYPE");
    expect(filesOnDisk()).toEqual([]);
  });

  test("a connection dropped mid-upload leaves nothing behind", async () => {
    const complete = uploadRequest([
      new File([part(minimalPdf())], "first.pdf"),
      new File([part(Buffer.concat([minimalPdf(), Buffer.alloc(2 * MB)]))], "second.pdf"),
    ]);
    const bytes = new Uint8Array(await complete.arrayBuffer());
    const cut = bytes.length - MB; // inside the second file
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < cut; offset += 64 * 1024) {
          controller.enqueue(bytes.slice(offset, Math.min(offset + 64 * 1024, cut)));
        }
        controller.error(new Error("client went away"));
      },
    });
    const request = new Request(complete.url, {
      method: "POST",
      body,
      headers: { "content-type": complete.headers.get("content-type")! },
      duplex: "half",
    } as RequestInit);
    await expect(parseUploadForm(request, "file", userId)).rejects.toThrow("client went away");
    expect(filesOnDisk()).toEqual([]);
  });

  test("text fields are read; an empty file input and a forged files value are ignored", async () => {
    const { key: someoneElses } = await storage.put(
      (async function* () {
        yield Buffer.from("private");
      })(),
    );
    // What a browser sends for an empty file input (undici's FormData omits filename="").
    const boundary = "----browser-boundary";
    const body = [
      `--${boundary}`,
      'Content-Disposition: form-data; name="title"',
      "",
      "Nothing attached",
      `--${boundary}`,
      'Content-Disposition: form-data; name="files"; filename=""',
      "Content-Type: application/octet-stream",
      "",
      "",
      `--${boundary}`,
      'Content-Disposition: form-data; name="files"',
      "",
      someoneElses,
      `--${boundary}`,
      'Content-Disposition: form-data; name="avatar"; filename="x.pdf"',
      "",
      "not wanted here",
      `--${boundary}--`,
      "",
    ].join("\r\n");
    const { formData, stored } = await parseUploadForm(
      new Request("http://localhost/x", {
        method: "POST",
        body,
        headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
      }),
      "file",
      userId,
    );
    expect(formData.get("title")).toBe("Nothing attached");
    expect(formData.getAll("files")).toEqual([]);
    expect(formData.has("avatar")).toBe(false);
    expect(stored).toEqual([]);
  });

  test("an oversized text field and a non-multipart body are refused", async () => {
    const form = new FormData();
    form.append("title", "x".repeat(70 * 1024));
    const tooLong = await rejection(
      parseUploadForm(
        new Request("http://localhost/x", { method: "POST", body: form }),
        "file",
        userId,
      ),
    );
    expect(tooLong).toMatchObject({ code: "UPLOAD_FAILED", status: 413 });

    const notMultipart = await rejection(
      parseUploadForm(
        new Request("http://localhost/x", {
          method: "POST",
          body: new URLSearchParams({ a: "b" }),
        }),
        "file",
        userId,
      ),
    );
    expect(notMultipart).toMatchObject({ code: "UPLOAD_FAILED", status: 400 });
  });

  test("more parts than an upload form has are refused with a clear 400, nothing kept", async () => {
    const fields = Object.fromEntries(
      Array.from({ length: UPLOAD_FORM_MAX_PARTS }, (_, index) => [`field${index}`, "v"]),
    );
    const error = await rejection(
      parseUploadForm(
        uploadRequest([new File([part(minimalPdf())], "one.pdf")], fields),
        "file",
        userId,
      ),
    );
    expect(error).toMatchObject({
      code: "UPLOAD_FAILED",
      status: 400,
      message: `The form has more than ${UPLOAD_FORM_MAX_PARTS} fields and files.`,
    });
    expect(filesOnDisk()).toEqual([]);
  });

  test("a body the server ends past the route's limit is a 413 naming it, nothing kept", async () => {
    const complete = uploadRequest([
      new File([part(minimalPdf())], "first.pdf"),
      new File([part(Buffer.concat([minimalPdf(), Buffer.alloc(2 * MB)]))], "second.pdf"),
    ]);
    const request = new Request(complete.url, {
      method: "POST",
      body: countedStream(complete.body!, MB),
      headers: { "content-type": complete.headers.get("content-type")! },
      duplex: "half",
    } as RequestInit);
    const error = await rejection(parseUploadForm(request, "file", userId));
    expect(error).toMatchObject({ code: "FILE_TOO_LARGE", status: 413 });
    expect(error.message).toBe("An upload can be up to 1 MB in all.");
    expect(filesOnDisk()).toEqual([]);
  });

  test("a clip's body ended past its route's limit names a video's limit, not a photo upload's", async () => {
    // An MP4's first box (ftyp, isom), then more bytes than the counted stream lets through.
    const mp4Start = Buffer.from("000000186674797069736f6d0000020069736f6d69736f32", "hex");
    const complete = uploadRequest([
      new File([part(Buffer.concat([mp4Start, Buffer.alloc(2 * MB)]))], "clip.mp4"),
    ]);
    const request = new Request(complete.url, {
      method: "POST",
      body: countedStream(complete.body!, MB),
      headers: { "content-type": complete.headers.get("content-type")! },
      duplex: "half",
    } as RequestInit);
    const error = await rejection(parseUploadForm(request, "video", userId));
    expect(error).toMatchObject({ code: "FILE_TOO_LARGE", status: 413 });
    expect(error.message).toBe("A video can be up to 200 MB.");
    expect(filesOnDisk()).toEqual([]);
  });

  test("a file name with ; = and ' is read, not a 500", async () => {
    const { stored } = await parseUploadForm(
      uploadRequest([new File([part(minimalPdf())], "Tom's report; v=2.pdf")]),
      "file",
      userId,
    );
    expect(stored.map((upload) => upload.name)).toEqual(["Tom's report; v=2.pdf"]);
  });
});

describe("withUpload, the one way uploads come in", () => {
  const pdf = () => new File([part(minimalPdf())], "letter.pdf", { type: "application/pdf" });
  const options = () => ({ kind: "file" as const, userId, csrf: false });

  test("keeps the files an item refers to once `use` saved it", async () => {
    const folderId = createFolder(db, userId).id;
    const saved = await withUpload(uploadRequest([pdf()]), options(), ({ stored }) =>
      createUploadItem(
        userId,
        folderId,
        "file",
        UploadDetailsSchema.parse({ title: "A letter", addComment: true, commentText: "For you" }),
        stored,
      ),
    );
    expect(saved.filePaths).toHaveLength(1);
    expect(filesOnDisk()).toEqual([pathOfKey(saved.filePaths[0]!)]);
  });

  test("deletes what nothing refers to when `use` answers a refusal or throws", async () => {
    const refusal = await withUpload(uploadRequest([pdf()]), options(), ({ stored }) => {
      expect(filesOnDisk()).toHaveLength(stored.length);
      return "refused";
    });
    expect(refusal).toBe("refused");
    expect(filesOnDisk()).toEqual([]);

    const fault = new Error("the database went away");
    await expect(
      withUpload(uploadRequest([pdf()]), options(), () => {
        throw fault;
      }),
    ).rejects.toBe(fault);
    expect(filesOnDisk()).toEqual([]);
  });

  test("a page's form without its CSRF token is refused, and keeps nothing", async () => {
    let used = false;
    const refused = await withUpload(uploadRequest([pdf()]), { ...options(), csrf: true }, () => {
      used = true;
    }).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      data: { kind: "csrf", reason: "missing" },
      init: { status: 403 },
    });
    expect(used).toBe(false);
    expect(filesOnDisk()).toEqual([]);
  });
  test("the token is checked before the first file is read: a file sent before it is refused, nothing stored", async () => {
    const { token, setCookie } = await issueCsrfToken(new Request("http://localhost/"), null);
    const cookie = setCookie!.split(";")[0]!;
    const form = (order: "token first" | "file first") => {
      const body = new FormData();
      if (order === "token first") body.append("csrf", token);
      body.append("files", pdf());
      if (order === "file first") body.append("csrf", token);
      return new Request("http://localhost/upload", {
        method: "POST",
        body,
        headers: { cookie, "sec-fetch-site": "same-origin" },
      });
    };
    const late = await withUpload(
      form("file first"),
      { ...options(), csrf: true },
      () => "used",
    ).catch((error: unknown) => error);
    expect(late).toMatchObject({
      data: { kind: "csrf", reason: "missing" },
      init: { status: 403 },
    });
    expect(filesOnDisk()).toEqual([]);

    const stored = await withUpload(form("token first"), { ...options(), csrf: true }, (upload) =>
      upload.stored.map((file) => file.name),
    );
    expect(stored).toEqual(["letter.pdf"]);
  });

  test("a text field past a plain form's size is refused, named", async () => {
    const error = await rejection(
      parseUploadForm(uploadRequest([pdf()], { title: "a".repeat(70 * 1024) }), "file", userId),
    );
    expect(error.status).toBe(413);
    expect(error.message).toContain('"title"');
    expect(filesOnDisk()).toEqual([]);
  });
});

describe("photo or file, chosen by the first file (the share sheet)", () => {
  async function smallJpeg() {
    return sharp({ create: { width: 40, height: 30, channels: 3, background: "#c84" } })
      .jpeg()
      .toBuffer();
  }
  const pdf = "%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n";

  test("a shared photo is read as a photo: re-encoded, with a thumbnail", async () => {
    const { stored, kind, formData } = await parseUploadForm(
      uploadRequest([new File([part(await smallJpeg())], "IMG_2041.jpg", { type: "image/jpeg" })], {
        text: "Look",
      }),
      "photo-or-file",
      userId,
    );
    expect(kind).toBe("photo");
    expect(formData.get("text")).toBe("Look");
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ mimeType: "image/jpeg" });
    expect(stored[0]!.thumbnailKey).toBeDefined();
  });

  test("a shared PDF is read as a file", async () => {
    const { stored, kind } = await parseUploadForm(
      uploadRequest([new File([pdf], "menu.pdf", { type: "application/pdf" })]),
      "photo-or-file",
      userId,
    );
    expect(kind).toBe("file");
    expect(stored).toEqual([expect.objectContaining({ mimeType: "application/pdf" })]);
  });

  test("a file claiming to be a photo is judged by its bytes as one, and refused", async () => {
    const error = await rejection(
      parseUploadForm(
        uploadRequest([new File([pdf], "holiday.heic", { type: "image/heic" })]),
        "photo-or-file",
        userId,
      ),
    );
    expect(error.code).toBe("INVALID_FILE_TYPE");
    expect(error.message).toContain("not an allowed photo type");
    expect(filesOnDisk()).toEqual([]);
  });

  test("no file at all reads as a file share with nothing stored", async () => {
    const { stored, kind } = await parseUploadForm(
      uploadRequest([], { url: "https://example.com/" }),
      "photo-or-file",
      userId,
    );
    expect({ stored, kind }).toEqual({ stored: [], kind: "file" });
  });
});

describe("a kind told by the first file's bytes (the API's upload without a type)", () => {
  /** An MP4's first box: ftyp, brand isom (enough for its kind; ffprobe judges the rest later). */
  const mp4Head = Buffer.concat([
    Buffer.from([0, 0, 0, 0x20]),
    Buffer.from("ftypisom"),
    Buffer.from([0, 0, 2, 0]),
    Buffer.from("isomiso2avc1mp41"),
    Buffer.alloc(4096),
  ]);

  test("a photo named and typed as a PDF is read as a photo", async () => {
    const jpeg = await sharp({ create: { width: 40, height: 30, channels: 3, background: "#48c" } })
      .jpeg()
      .toBuffer();
    const { stored, kind } = await parseUploadForm(
      uploadRequest([new File([part(jpeg)], "scan.pdf", { type: "application/pdf" })]),
      "by-content",
      userId,
    );
    expect(kind).toBe("photo");
    expect(stored[0]).toMatchObject({ mimeType: "image/jpeg" });
    expect(stored[0]!.thumbnailKey).toBeDefined();
  });

  test("a clip's bytes make a video, stored whole as uploaded", async () => {
    const { stored, kind } = await parseUploadForm(
      uploadRequest([new File([part(mp4Head)], "clip.bin", { type: "application/octet-stream" })]),
      "by-content",
      userId,
    );
    expect(kind).toBe("video");
    expect(stored).toEqual([expect.objectContaining({ mimeType: "video/mp4" })]);
    expect(fs.readFileSync(pathOfKey(stored[0]!.key))).toEqual(mp4Head);
  });

  test("a PDF is a file", async () => {
    const { kind } = await parseUploadForm(
      uploadRequest([new File([part(minimalPdf())], "menu")]),
      "by-content",
      userId,
    );
    expect(kind).toBe("file");
  });

  test("bytes of no allowed kind are refused as a file, with nothing kept", async () => {
    const error = await rejection(
      parseUploadForm(uploadRequest([new File([part(ELF)], "photo.jpg")]), "by-content", userId),
    );
    expect(error.code).toBe("INVALID_FILE_TYPE");
    expect(error.message).toContain("not an allowed file type");
    expect(filesOnDisk()).toEqual([]);
  });
});
