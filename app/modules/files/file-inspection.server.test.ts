import { describe, expect, test } from "vitest";
import {
  acceptedType,
  classifyThreat,
  sanitizeFilename,
  uploadKindOfContent,
} from "./file-inspection.server";

describe("sanitizeFilename", () => {
  test("keeps a readable name without paths, controls or direction tricks", () => {
    expect(sanitizeFilename("C:\\Users\\me\\report.pdf", "file")).toBe("report.pdf");
    expect(sanitizeFilename("../../etc/passwd", "file")).toBe("passwd");
    expect(sanitizeFilename("photo\u202Egpj.exe", "file")).toBe("photogpj.exe");
    expect(sanitizeFilename("a\u0000b\r\n.pdf", "file")).toBe("ab.pdf");
    expect(sanitizeFilename("...", "file")).toBe("file");
    expect(sanitizeFilename('what"is<this>.pdf', "file")).toBe("what_is_this_.pdf");
    const long = sanitizeFilename(`${"é".repeat(300)}.docx`, "file");
    expect(Array.from(long)).toHaveLength(200);
    expect(long.endsWith(".docx")).toBe(true);
  });
});

describe("acceptedType", () => {
  test("a kind takes only its own types, whatever the name says", () => {
    const jpeg = { ext: "jpg", mime: "image/jpeg" } as const;
    const pdf = { ext: "pdf", mime: "application/pdf" } as const;
    expect(acceptedType("photo", jpeg, "a.pdf")).toEqual(jpeg);
    expect(acceptedType("file", jpeg, "a.jpg")).toBeNull();
    expect(acceptedType("photo", pdf, "a.jpg")).toBeNull();
    expect(acceptedType("file", undefined, "a.pdf")).toBeNull();
  });

  test("a video is an MP4, QuickTime or WebM container, and only a video", () => {
    const mov = { ext: "mov", mime: "video/quicktime" } as const;
    const mp4 = { ext: "mp4", mime: "video/mp4" } as const;
    expect(acceptedType("video", mov, "IMG_1.MOV")).toEqual(mov);
    expect(acceptedType("video", mp4, "clip.webm")).toEqual(mp4);
    expect(acceptedType("video", { ext: "jpg", mime: "image/jpeg" }, "a.mp4")).toBeNull();
    expect(acceptedType("photo", mov, "a.mov")).toBeNull();
    expect(acceptedType("file", mp4, "a.mp4")).toBeNull();
  });

  test("an OLE container is Word only under a .doc name", () => {
    const cfb = { ext: "cfb", mime: "application/x-cfb" } as const;
    expect(acceptedType("file", cfb, "minutes.doc")).toEqual({
      ext: "doc",
      mime: "application/msword",
    });
    expect(acceptedType("file", cfb, "budget.xls")).toBeNull();
  });
});

describe("classifyThreat", () => {
  test("names executables, scripts and plain mismatches by their bytes", () => {
    expect(classifyThreat(undefined, Buffer.from("MZ\x90\x00")).threatType).toBe("executable");
    expect(classifyThreat(undefined, Buffer.from("#!/bin/sh\n")).signatures).toEqual(["#!"]);
    const page = classifyThreat(undefined, Buffer.from("<!DOCTYPE html><script>"));
    expect(page).toMatchObject({ threatType: "script", threatLevel: "high" });
    expect(page.signatures).toEqual(["<script", "<!doctype html"]);
    const zip = classifyThreat({ ext: "zip", mime: "application/zip" }, Buffer.from("PK\x03\x04"));
    expect(zip).toEqual({ threatType: "type_mismatch", threatLevel: "medium", signatures: [] });
  });
});

describe("uploadKindOfContent", () => {
  test("a photo's or a clip's bytes give their kind; anything else is judged as a file", () => {
    expect(uploadKindOfContent({ ext: "heic", mime: "image/heic" }, "x.pdf")).toBe("photo");
    expect(uploadKindOfContent({ ext: "mov", mime: "video/quicktime" }, "x.jpg")).toBe("video");
    expect(uploadKindOfContent({ ext: "webm", mime: "video/webm" }, "clip")).toBe("video");
    expect(uploadKindOfContent({ ext: "pdf", mime: "application/pdf" }, "x.mp4")).toBe("file");
    expect(uploadKindOfContent({ ext: "exe", mime: "application/x-msdownload" }, "a")).toBe("file");
    expect(uploadKindOfContent(undefined, "a.mp4")).toBe("file");
  });
});
