import { and, eq } from "drizzle-orm";
import { folders, sendLedger, sendLedgerRecipients, users } from "#db/schema";
import {
  itemReasons,
  type NewsletterItem,
  senderFirstName,
  senderFullName,
  urlText,
} from "#emails/newsletter";
import { newsletterSubject } from "#emails/newsletter.server";
import { accentColourOf, type NewsletterTemplate } from "#emails/newsletter-themes";
import { hasOptedOut } from "~/modules/recipients/opt-outs.server";
import {
  archiveCode,
  compactUnsubscribeUrl,
  type IssueLinkPurpose,
  readIssueLinkCode,
  resubscribeToken,
} from "~/modules/recipients/recipient-links.server";
import { db } from "~/platform/db.server";
import { newsletterBrandingFor } from "./branding.server";
import { filesKept, issueItems } from "./sent-archive.server";

/**
 * One recipient's copy of a sent issue, reached by a signed link from their
 * e-mail (app/modules/recipients/recipient-links.server.ts, `issueLinkCode`), with no
 * account. It exists only while: the code is valid for its purpose, the issue
 * was sent and not deleted by its sender, this address was actually mailed
 * it, and (for recipients) the address has not left the folder or everything.
 * A copy sent to the sender (cc) stays theirs. Nothing returned names any
 * other recipient.
 *
 * `checkRecipientCopy` also says why a genuine copy stopped working, so the
 * web version can tell its reader (docs/decisions/0146-web-version-as-a-page.md);
 * a code that is not ours, or an address that was never mailed the issue, is
 * "unknown" whatever the reason. A genuine code whose issue no longer exists
 * at all ("erased": its folder or the sender's account was deleted, and the
 * issue with it) was made for that address when it was mailed, but nothing
 * is left to say who sent it.
 */
type RecipientCopy = {
  ledger: typeof sendLedger.$inferSelect;
  email: string;
  asRecipient: boolean;
};

type CopyCheck =
  | { state: "unknown" }
  | { state: "erased" }
  | ({ state: "open" } & RecipientCopy)
  | ({ state: "deleted" } & RecipientCopy)
  | ({ state: "left" } & RecipientCopy);

export function checkRecipientCopy(purpose: IssueLinkPurpose, code: string): CopyCheck {
  const link = readIssueLinkCode(purpose, code);
  if (!link) return { state: "unknown" };
  const ledger = db.select().from(sendLedger).where(eq(sendLedger.id, link.ledgerId)).get();
  if (!ledger) return { state: "erased" };
  if (ledger.status !== "sending" && ledger.status !== "sent") return { state: "unknown" };
  const copy = db
    .select({ kind: sendLedgerRecipients.kind })
    .from(sendLedgerRecipients)
    .where(
      and(
        eq(sendLedgerRecipients.ledgerId, ledger.id),
        eq(sendLedgerRecipients.email, link.email),
        eq(sendLedgerRecipients.status, "sent"),
      ),
    )
    .all();
  if (copy.length === 0) return { state: "unknown" };
  const asRecipient = copy.some((row) => row.kind === "recipient");
  const found = { ledger, email: link.email, asRecipient };
  if (ledger.deletedAt) return { state: "deleted", ...found };
  if (asRecipient && hasOptedOut(ledger.folderId, link.email)) return { state: "left", ...found };
  return { state: "open", ...found };
}

/** The copy while it works, else null (for the open image and click redirect, which say nothing). */
export function findRecipientCopy(purpose: IssueLinkPurpose, code: string) {
  const check = checkRecipientCopy(purpose, code);
  return check.state === "open" ? check : null;
}

/** The sender's look as the e-mail has it: the classic one unless they are Premium. */
export type WebVersionLook = {
  template: NewsletterTemplate;
  /** `#rrggbb`, checked: it is written into a style. */
  accentColor: string | null;
  headerImage: { url: string; width: number; height: number } | null;
};

/** Who sent what, for the page's header and notices. */
export type WebVersionMasthead = {
  folderName: string;
  senderName: string;
  senderFirstName: string;
  look: WebVersionLook;
};

type Reasons = ReturnType<typeof itemReasons>;

/** One item of the page, by kind: only what the reader sees, never a storage key. */
export type WebVersionItem =
  | {
      kind: "link";
      id: number;
      title: string;
      /** `href` is null for what is not a web address: shown as text only. */
      links: { href: string | null; text: string }[];
      card: {
        pictureUrl: string | null;
        pictureAlt: string;
        siteName: string | null;
        description: string | null;
      } | null;
      reasons: Reasons;
    }
  | { kind: "musing"; id: number; title: string; note: string | null }
  | {
      kind: "photo";
      id: number;
      title: string;
      /** `url` is null once the archive no longer keeps the photo: the page names it only. */
      photos: { url: string | null; name: string }[];
      reasons: Reasons;
    }
  | {
      kind: "file";
      id: number;
      title: string;
      files: { url: string | null; name: string; size: number }[];
      reasons: Reasons;
    }
  | {
      kind: "video";
      id: number;
      title: string;
      /** Null once the archive no longer keeps the clip: the page names it only. */
      video: { url: string; posterUrl: string | null } | null;
      name: string;
      reasons: Reasons;
    };

export type WebVersionPage =
  | { state: "unknown" }
  /** Deleted by its sender; `masthead` is null when its folder went too. */
  | { state: "gone"; masthead: WebVersionMasthead | null }
  | {
      state: "left";
      masthead: WebVersionMasthead;
      email: string;
      /** The existing /resubscribe flow's link fields: opening it changes nothing until pressed. */
      resubscribe: { email: string; folder: number; token: string };
    }
  | {
      state: "open";
      masthead: WebVersionMasthead;
      subject: string;
      email: string;
      /** The sender's few words for this issue, as the e-mail carried them. */
      issueNote: string | null;
      items: WebVersionItem[];
      signoff: string | null;
      unsubscribeUrl: string;
      /** "All issues of …", for a recipient's copy (the sender's own has their Sent page). */
      archivePath: string | null;
    };

/** Where the page's pictures and files are served, through the same check as the page. */
export const webVersionFileUrl = (
  code: string,
  itemId: number,
  index: number | "preview" | "poster" | "thumb",
) => `/v-files/${code}/${itemId}/${index}`;
export const webVersionHeaderUrl = (code: string) => `/v-files/${code}/header`;

function lookOf(sender: typeof users.$inferSelect, code: string): WebVersionLook {
  const branding = newsletterBrandingFor(sender)?.branding;
  if (!branding) return { template: "classic", accentColor: null, headerImage: null };
  return {
    template: branding.template,
    accentColor: accentColourOf(branding),
    headerImage: branding.headerImage
      ? { url: webVersionHeaderUrl(code), ...branding.headerImage }
      : null,
  };
}

function itemView(item: NewsletterItem, code: string, kept: boolean): WebVersionItem | null {
  const fileUrl = (index: number) => (kept ? webVersionFileUrl(code, item.id, index) : null);
  switch (item.type) {
    case "link": {
      const ready = item.previewStatus === "ready";
      const description = item.previewDescription?.trim() || null;
      return {
        kind: "link",
        id: item.id,
        title: item.title,
        links: item.urls.map((url) =>
          /^https?:\/\//i.test(url) ? { href: url, text: urlText(url) } : { href: null, text: url },
        ),
        card: ready
          ? {
              pictureUrl:
                item.previewImageKey && item.urls[0] && kept
                  ? webVersionFileUrl(code, item.id, "preview")
                  : null,
              pictureAlt: item.previewTitle ?? item.title,
              siteName: item.previewSiteName,
              description,
            }
          : null,
        reasons: itemReasons(item),
      };
    }
    case "musing":
      return { kind: "musing", id: item.id, title: item.title, note: item.note?.trim() || null };
    case "photo":
      return {
        kind: "photo",
        id: item.id,
        title: item.title,
        photos: item.filePaths.flatMap((key, index) =>
          key ? [{ url: fileUrl(index), name: item.fileNames[index] ?? "Photo" }] : [],
        ),
        reasons: itemReasons(item),
      };
    case "file":
      return {
        kind: "file",
        id: item.id,
        title: item.title,
        files: item.filePaths.flatMap((key, index) =>
          key
            ? [
                {
                  url: fileUrl(index),
                  name: item.fileNames[index] ?? "File",
                  size: item.fileSizes[index] ?? 0,
                },
              ]
            : [],
        ),
        reasons: itemReasons(item),
      };
    case "video":
      return {
        kind: "video",
        id: item.id,
        title: item.title,
        video:
          kept && item.filePaths[0]
            ? {
                url: webVersionFileUrl(code, item.id, 0),
                posterUrl: item.thumbnailPaths[0]
                  ? webVersionFileUrl(code, item.id, "poster")
                  : null,
              }
            : null,
        name: item.fileNames[0] ?? "Video",
        reasons: itemReasons(item),
      };
    default:
      return null;
  }
}

/**
 * The web version of one recipient's copy: the issue as they were sent it,
 * in the sender's look, its pictures through `/v-files/<code>/…`; or, for a
 * genuine copy that stopped working, who sent it and why it is gone.
 */
export function webVersionPage(code: string, now = new Date()): WebVersionPage {
  const check = checkRecipientCopy("web", code);
  if (check.state === "unknown") return { state: "unknown" };
  if (check.state === "erased") return { state: "gone", masthead: null };
  const { ledger, email } = check;
  const folder = db.select().from(folders).where(eq(folders.id, ledger.folderId)).get();
  const sender = folder && db.select().from(users).where(eq(users.id, folder.userId)).get();
  if (!folder || !sender) return { state: "unknown" };
  const masthead: WebVersionMasthead = {
    folderName: folder.name,
    senderName: senderFullName(sender),
    senderFirstName: senderFirstName(sender),
    look: lookOf(sender, code),
  };
  if (check.state === "left") {
    return {
      state: "left",
      masthead,
      email,
      resubscribe: { email, folder: folder.id, token: resubscribeToken(email, folder.id) },
    };
  }
  const items = check.state === "deleted" ? [] : issueItems(ledger);
  if (items.length === 0) return { state: "gone", masthead };
  return {
    state: "open",
    masthead,
    subject: newsletterSubject({ folder, sender, items }),
    email,
    issueNote: ledger.issueNote?.trim() || null,
    items: items.flatMap((item) => {
      // Files past the archive retention are gone: the page names them only.
      const view = itemView(item, code, filesKept(item, now) || item.sentAt === null);
      return view ? [view] : [];
    }),
    signoff: folder.personalSignoff?.trim() || null,
    unsubscribeUrl: compactUnsubscribeUrl(folder.id, email),
    archivePath: check.asRecipient ? `/issues/${archiveCode(folder.id, email)}` : null,
  };
}

/**
 * A photo, file or link picture (`index` "preview") of a web version, or a
 * photo's thumbnail (`index` "thumb", for the recipient's archive: the photo
 * itself when it has none), through the same check as the page; else null.
 */
export function webVersionFile(
  code: string,
  itemId: number,
  index: number | "preview" | "poster" | "thumb",
) {
  const copy = findRecipientCopy("web", code);
  if (!copy) return null;
  const item = issueItems(copy.ledger).find((candidate) => candidate.id === itemId);
  if (!item || (item.sentAt !== null && !filesKept(item))) return null;
  if (index === "preview") {
    return item.type === "link" && item.previewStatus === "ready" && item.previewImageKey
      ? { key: item.previewImageKey, name: "preview.jpg", mimeType: "image/jpeg" }
      : null;
  }
  if (index === "thumb") {
    if (item.type !== "photo" || !item.filePaths[0]) return null;
    return item.thumbnailPaths[0]
      ? { key: item.thumbnailPaths[0], name: "thumbnail.jpg", mimeType: "image/jpeg" }
      : {
          key: item.filePaths[0],
          name: item.fileNames[0] ?? "photo",
          mimeType: item.mimeTypes[0] ?? "application/octet-stream",
        };
  }
  if (index === "poster") {
    return item.type === "video" && item.thumbnailPaths[0]
      ? { key: item.thumbnailPaths[0], name: "poster.jpg", mimeType: "image/jpeg" }
      : null;
  }
  const key = item.filePaths[index];
  if (!key) return null;
  return {
    key,
    name: item.fileNames[index] ?? "file",
    mimeType: item.mimeTypes[index] ?? "application/octet-stream",
  };
}

/** The sender's header image, while the copy works and their branding has one; else null. */
export function webVersionHeaderImage(code: string) {
  const copy = findRecipientCopy("web", code);
  if (!copy) return null;
  const folder = db.select().from(folders).where(eq(folders.id, copy.ledger.folderId)).get();
  const sender = folder && db.select().from(users).where(eq(users.id, folder.userId)).get();
  return (sender && newsletterBrandingFor(sender)?.headerImage) || null;
}
