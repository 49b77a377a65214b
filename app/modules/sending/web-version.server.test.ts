import { eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import {
  contentItems,
  folderRecipientStates,
  folders,
  senderBranding,
  sendLedger,
  users,
} from "#db/schema";
import { createSentLedger } from "#db/sent-issue-factories";
import {
  issueLinkCode,
  isValidResubscribeToken,
} from "~/modules/recipients/recipient-links.server";
import { db } from "~/platform/db.server";
import { webVersionFile, webVersionHeaderImage, webVersionPage } from "./web-version.server";

let counter = 0;

/** A sent issue (a link with a ready preview, a photo) mailed to Mum, from a sender of the given tier. */
function seedIssue(tier: "free" | "premium" = "free") {
  counter += 1;
  const user = createUser(db, {
    email: `web${counter}@example.com`,
    subscriptionTier: tier,
    subscriptionStatus: tier === "premium" ? "active" : "inactive",
  });
  const folder = createFolder(db, user.id, { name: "Family", personalSignoff: "Love, Ada" });
  const sentAt = new Date();
  const items = db
    .insert(contentItems)
    .values([
      {
        folderId: folder.id,
        type: "link" as const,
        title: "Tides",
        urls: ["https://www.example.com/tides", "not a web address"],
        previewStatus: "ready" as const,
        previewTitle: "Tides this week",
        previewSiteName: "Example",
        previewImageKey: `preview-key-${counter}`,
        addComment: true,
        commentText: "  For the trip ",
        sentAt,
        sortOrder: 0,
      },
      {
        folderId: folder.id,
        type: "photo" as const,
        title: "Garden",
        filePaths: [`photo-key-${counter}`],
        thumbnailPaths: [""],
        fileNames: ["garden.jpg"],
        fileSizes: [10],
        mimeTypes: ["image/jpeg"],
        sentAt,
        sortOrder: 1,
      },
      {
        folderId: folder.id,
        type: "musing" as const,
        title: "Thinking of you",
        note: "  Line one\nline two  ",
        sentAt,
        sortOrder: 2,
      },
      {
        folderId: folder.id,
        type: "file" as const,
        title: "Recipe",
        filePaths: [`file-key-${counter}`],
        thumbnailPaths: [""],
        fileNames: ["cake.pdf"],
        fileSizes: [2048],
        mimeTypes: ["application/pdf"],
        responseExpectation: "expecting" as const,
        sentAt,
        sortOrder: 3,
      },
    ])
    .returning()
    .all();
  const { ledger } = createSentLedger(db, folder.id, {
    itemIds: items.map((item) => item.id),
    copies: [{ email: "mum@example.com" }, { email: "dad@example.com", status: "skipped" }],
    sentAt,
  });
  const code = issueLinkCode("web", ledger.id, "mum@example.com");
  return { user, folder, items, ledger, code };
}

test("an open copy: the issue by kind, its pictures by signed address, never a storage key", () => {
  const { items, code } = seedIssue();
  const [link, photo, , file] = items as [
    (typeof items)[0],
    (typeof items)[0],
    (typeof items)[0],
    (typeof items)[0],
  ];
  const page = webVersionPage(code);
  expect(page).toMatchObject({
    state: "open",
    email: "mum@example.com",
    subject: '"Family" from Ada: 4 things',
    signoff: "Love, Ada",
    masthead: {
      folderName: "Family",
      senderName: "Ada Lovelace",
      look: { template: "classic", accentColor: null, headerImage: null },
    },
    items: [
      {
        kind: "link",
        title: "Tides",
        links: [
          { href: "https://www.example.com/tides", text: "example.com/tides" },
          { href: null, text: "not a web address" },
        ],
        card: {
          pictureUrl: `/v-files/${code}/${link.id}/preview`,
          pictureAlt: "Tides this week",
          siteName: "Example",
        },
        reasons: { comment: "For the trip", question: null, hope: null },
      },
      {
        kind: "photo",
        photos: [{ url: `/v-files/${code}/${photo.id}/0`, name: "garden.jpg" }],
      },
      { kind: "musing", title: "Thinking of you", note: "Line one\nline two" },
      {
        kind: "file",
        files: [{ url: `/v-files/${code}/${file.id}/0`, name: "cake.pdf", size: 2048 }],
        reasons: { comment: null, question: null, hope: "Reply hoped for" },
      },
    ],
  });
  expect(JSON.stringify(page)).not.toMatch(/(preview|photo|file)-key-/);
  expect(JSON.stringify(page)).not.toContain("dad@example.com");
});

test("the link's picture and photos are served through the same check", () => {
  const { items, code, ledger } = seedIssue();
  const [link, photo] = items as [(typeof items)[0], (typeof items)[0]];
  expect(webVersionFile(code, link.id, "preview")).toMatchObject({
    key: link.previewImageKey,
    mimeType: "image/jpeg",
  });
  expect(webVersionFile(code, photo.id, 0)).toMatchObject({ key: photo.filePaths[0] });
  expect(webVersionFile(code, photo.id, "preview")).toBeNull();
  expect(webVersionFile(`${code}x`, link.id, "preview")).toBeNull();
  db.update(sendLedger).set({ deletedAt: new Date() }).where(eq(sendLedger.id, ledger.id)).run();
  expect(webVersionFile(code, link.id, "preview")).toBeNull();
});

test("after the recipient left: why, and the re-subscribe link's fields; nothing of the issue", () => {
  const { folder, code } = seedIssue();
  db.insert(folderRecipientStates)
    .values({
      folderId: folder.id,
      email: "mum@example.com",
      mailbox: "mum@example.com",
      status: "unsubscribed",
    })
    .run();
  const page = webVersionPage(code);
  expect(page).toMatchObject({
    state: "left",
    email: "mum@example.com",
    masthead: { folderName: "Family", senderName: "Ada Lovelace" },
  });
  expect(JSON.stringify(page)).not.toContain("Tides");
  const link = page.state === "left" ? page.resubscribe : null;
  expect(link && isValidResubscribeToken(link.email, link.folder, link.token)).toBe(true);
  expect(link?.folder).toBe(folder.id);
});

test("after the sender deleted the issue: gone, in their look", () => {
  const { ledger, code } = seedIssue();
  db.update(sendLedger).set({ deletedAt: new Date() }).where(eq(sendLedger.id, ledger.id)).run();
  expect(webVersionPage(code)).toMatchObject({
    state: "gone",
    masthead: { folderName: "Family", senderName: "Ada Lovelace" },
  });
});

test("after the folder was deleted, and the issue with it: gone, with nobody left to name", () => {
  const { folder, code } = seedIssue();
  db.delete(folders).where(eq(folders.id, folder.id)).run();
  expect(webVersionPage(code)).toEqual({ state: "gone", masthead: null });
  expect(webVersionPage(`${code}x`)).toEqual({ state: "unknown" });
});

test("a forged code, another purpose's code, or an address never mailed: unknown", () => {
  const { ledger, code } = seedIssue();
  expect(webVersionPage(`${code}x`)).toEqual({ state: "unknown" });
  expect(webVersionPage(issueLinkCode("open", ledger.id, "mum@example.com"))).toEqual({
    state: "unknown",
  });
  expect(webVersionPage(issueLinkCode("web", ledger.id, "dad@example.com"))).toEqual({
    state: "unknown",
  });
});

test("a Premium sender's look: template, accent and the header image at its own address", () => {
  const { user, code } = seedIssue("premium");
  db.insert(senderBranding)
    .values({
      userId: user.id,
      template: "letter",
      accentColor: "#8a2d3b",
      headerImage: Buffer.from("image"),
      headerImageType: "image/png",
      headerImageWidth: 600,
      headerImageHeight: 120,
    })
    .run();
  expect(webVersionPage(code)).toMatchObject({
    masthead: {
      look: {
        template: "letter",
        accentColor: "#8a2d3b",
        headerImage: { url: `/v-files/${code}/header`, width: 600, height: 120 },
      },
    },
  });
  expect(webVersionHeaderImage(code)).toMatchObject({ contentType: "image/png" });
  expect(webVersionHeaderImage(`${code}x`)).toBeNull();
  // Premium ended: the settings are kept, the classic look is shown, as in the e-mail.
  db.update(users).set({ subscriptionTier: "free" }).where(eq(users.id, user.id)).run();
  expect(webVersionPage(code)).toMatchObject({
    masthead: { look: { template: "classic", accentColor: null, headerImage: null } },
  });
  expect(webVersionHeaderImage(code)).toBeNull();
});
