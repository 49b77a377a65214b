import { formatBytes, pluralize } from "~/utils/format";

/**
 * The Email Preview's size line in plain words: how big the e-mail is, what
 * makes it up, and how that sits against what this folder may send.
 */
export function previewSizeInWords(size: {
  htmlBytes: number;
  totalBytes: number;
  attachmentCount: number;
  limitBytes: number;
}) {
  const parts =
    size.attachmentCount === 0
      ? "text and links only, no attachments"
      : `the message ${formatBytes(size.htmlBytes)} and ${pluralize(size.attachmentCount, "attached photo or file", "attached photos and files")}`;
  const room =
    size.totalBytes > size.limitBytes
      ? `more than the ${formatBytes(size.limitBytes)} this folder can send`
      : `within the ${formatBytes(size.limitBytes)} this folder can send`;
  return `This e-mail is ${formatBytes(size.totalBytes)} (${parts}), ${room}.`;
}
