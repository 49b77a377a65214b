import type { SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { getUser, loginPath } from "~/modules/auth/session.server";
import { FREQUENCY_LABELS } from "~/modules/folders/folder-validation";
import { listFolders, recipientsOf } from "~/modules/folders/folders.server";
import { canCreateFolder, folderStats, getUsage } from "~/modules/plans/quota.server";
import { redirectWithToast } from "~/platform/toast.server";
import { withoutSiteName } from "./item-titles";
import {
  EMPTY_ITEM,
  type ItemFormValues,
  isValidUrl,
  normalizeUrl,
  QuickLinkSchema,
} from "./item-validation";
import { WAITS_FOR_NOTE } from "./needs-note";

/**
 * `/add`: a page captured in a browser (the extension, the bookmarklet, or a
 * phone's share sheet through the web app manifest's share target) waiting
 * for the user to choose a folder. Everything arrives as query parameters and
 * is read as untrusted text: shown as text, checked by the Add Link schema,
 * never an error page.
 */
export type Capture = {
  url: string;
  title: string;
  note: string;
  /** Anything was captured (the success toast says so). */
  fromBrowser: boolean;
};

/** A URL inside shared text ("Look at this https://… via App"). */
const URL_IN_TEXT = /https?:\/\/[^\s<>"`]+/i;
/** Sentence punctuation that follows a URL in text rather than belonging to it. */
const TRAILING_PUNCTUATION = new Set([...".,;:!?)]}'\"»"]);

/**
 * Longer than any field may be (a URL of 2,048 characters and a note of
 * 1,000), so the schema still reports what is too long, and short enough
 * that no pattern runs on an attacker's megabyte.
 */
const PARAM_MAX_LENGTH = 4096;

function param(searchParams: URLSearchParams, name: string) {
  return (searchParams.get(name) ?? "").slice(0, PARAM_MAX_LENGTH).trim();
}

/** `url` without the sentence punctuation after it; one pass from the end (a regex was quadratic). */
export function trimTrailingPunctuation(url: string) {
  let end = url.length;
  while (end > 0 && TRAILING_PUNCTUATION.has(url[end - 1]!)) end -= 1;
  return url.slice(0, end);
}

/** Every distinct http(s) address in a text, in order, without the sentence punctuation after each. */
export function urlsInText(text: string): string[] {
  const found = [...text.matchAll(new RegExp(URL_IN_TEXT.source, "gi"))].map((match) =>
    trimTrailingPunctuation(match[0]),
  );
  return [...new Set(found.filter(isValidUrl))];
}

export function readCapture(searchParams: URLSearchParams): Capture {
  let url = param(searchParams, "url");
  const title = param(searchParams, "title");
  let note = param(searchParams, "note");
  // The share target sends `text`; some apps put the page's URL only there.
  const text = param(searchParams, "text");
  if (text && !note) {
    let rest = text;
    if (!url) {
      const found = text.match(URL_IN_TEXT)?.[0];
      if (found) {
        url = trimTrailingPunctuation(found);
        rest = text.replace(found, " ");
      }
    } else {
      rest = text.split(url).join(" ");
    }
    rest = rest.replace(/[ \t]+/g, " ").trim();
    note = rest === title ? "" : rest;
  }
  return {
    url,
    // A shared page's title often ends with its site's name, which the card shows anyway.
    title: withoutSiteName(title, url),
    note,
    fromBrowser: searchParams.get("extension") === "true" || Boolean(url || title || note),
  };
}

/** The query that carries a capture from page to page (`/add`, the Add Link dialog, a new folder). */
export function captureQuery(capture: Capture) {
  if (!capture.fromBrowser) return "";
  const params = new URLSearchParams({ extension: "true" });
  if (capture.url) params.set("url", capture.url);
  if (capture.title) params.set("title", capture.title);
  if (capture.note) params.set("note", capture.note);
  return `?${params}`;
}

/**
 * The title to save from the capture's Add Link: the one in the form, unless it is the title
 * that came with the capture and the sender has put another address first. That title was the
 * captured page's, so it goes ("", the new page's own is read at save); a title the sender
 * typed stays.
 */
export function titleToSave(capture: Capture, input: { title: string; urls: string[] }) {
  const captured = normalizeUrl(capture.url);
  const first = normalizeUrl(input.urls[0] ?? "");
  return capture.title && input.title === capture.title && first !== captured ? "" : input.title;
}

export type CaptureProblems = { title: string[]; url: string[]; note: string[] };

/**
 * The Add Link form prefilled with a capture (the note becomes the comment),
 * and the schema's own messages for what was sent but will not pass: a
 * malformed or overlong URL, an overlong title or note. What was simply not
 * sent (no title, no note) may wait: a quick save fills in the title and
 * keeps the note for later (docs/decisions/0134-quick-saves-wait-for-a-note.md).
 */
export function captureForm(capture: Capture): {
  defaultValue: ItemFormValues;
  lastResult: SubmissionResult<string[]> | null;
  problems: CaptureProblems;
} {
  const defaultValue: ItemFormValues = {
    ...EMPTY_ITEM,
    // Left empty, the page's own title is fetched at save (./item-titles.server.ts).
    title: capture.title,
    urls: [capture.url],
    addComment: Boolean(capture.note),
    commentText: capture.note,
  };
  const formData = new FormData();
  formData.set("title", capture.title);
  formData.set("urls[0]", capture.url);
  if (capture.note) formData.set("addComment", "on");
  formData.set("commentText", capture.note);
  const submission = parseWithZod(formData, { schema: QuickLinkSchema });
  const errors = submission.status === "error" ? (submission.error ?? {}) : {};
  const problems: CaptureProblems = {
    title: capture.title ? (errors.title ?? []) : [],
    url: capture.url ? (errors["urls[0]"] ?? []) : [],
    note: capture.note ? (errors.commentText ?? []) : [],
  };
  const error: Record<string, string[]> = {};
  if (problems.title.length > 0) error.title = problems.title;
  if (problems.url.length > 0) error["urls[0]"] = problems.url;
  if (problems.note.length > 0) error.commentText = problems.note;
  const lastResult =
    Object.keys(error).length > 0
      ? { ...submission.reply(), status: "error" as const, error }
      : null;
  return { defaultValue, lastResult, problems };
}

/** Signed out: the "Please log in" toast (docs/product-rules.md, Pages and messages), and back to the very same `/add` URL after logging in. */
export async function requireAddUser(request: Request) {
  const user = await getUser(request);
  if (user) return user;
  throw await redirectWithToast(loginPath(request, { explain: false }), {
    title: "Please log in",
    description: "You need to be logged in to add content.",
    variant: "destructive",
  });
}

/** The folders to choose from: name, recipients' e-mails, frequency, item count. */
export function folderChoices(userId: number) {
  const stats = folderStats(userId);
  const choices = listFolders(userId).map((folder) => ({
    id: folder.id,
    name: folder.name,
    emails: recipientsOf(folder).map((recipient) => recipient.email),
    frequencyLabel: FREQUENCY_LABELS[folder.frequency],
    isPaused: folder.isPaused,
    isUnsubscribed: folder.isUnsubscribed,
    itemCount: stats.get(folder.id)?.itemCount ?? 0,
  }));
  return { folders: choices, canCreateFolder: canCreateFolder(getUsage(userId)) };
}

export function addedToast(capture: Capture, waitsForNote: boolean) {
  return {
    title: capture.fromBrowser ? "Content captured from browser!" : "Content added successfully!",
    ...(waitsForNote ? { description: WAITS_FOR_NOTE } : {}),
  };
}
