import type { Readable } from "node:stream";
import type { AttachmentStream, MailParserOptions, MessageText } from "mailparser";
import { LIMITS } from "~/modules/plans/limits";
import { type SpooledFile, spoolToFile } from "~/platform/spool.server";
import type { MessageShape } from "./message-shape.server";

/**
 * The whole parse of a message that passed every check of its envelope and
 * headers, and what it holds in memory, reserved from the process's budget
 * before it starts (docs/decisions/0178-smtp-mail-spooled-and-parsed-under-the-memory-budget.md).
 *
 * mailparser's streaming interface: each attachment goes to a spooled file as
 * it is decoded, never into memory, and is read from there by the upload
 * pipeline. What stays in memory is the text: a JS string of each text part,
 * the HTML's text made by html-to-text, then the reply and signature cuts of
 * planSave. Measured in message-parse.server.test.ts with the production heap,
 * that is up to about 50 bytes for each byte of text as sent, and the
 * parser's and the streams' own buffers up to about 5.5 MB (mailparser 3.14
 * on Node 24): the estimate is 64 bytes a text byte and 8 MiB. The rest of
 * the message costs spool, not memory. The text is bounded
 * (LIMITS.saveByEmail.maxTextBytes), so the most a message reserves is 72 MiB.
 */
export const BYTES_PER_TEXT_BYTE = 64;
export const PARSER_BYTES = 8 * 1024 * 1024;

export function parseReservationBytes(shape: MessageShape) {
  return BYTES_PER_TEXT_BYTE * shape.textBytes + PARSER_BYTES;
}

/** An attachment as mailparser describes it, its bytes in a spooled file. */
export type SpooledAttachment = Pick<AttachmentStream, "contentType" | "filename" | "related"> & {
  file: SpooledFile;
};

export type ParsedMessage = { subject?: string; text?: string; attachments: SpooledAttachment[] };

const OPTIONS: MailParserOptions = {
  skipImageLinks: true,
  skipTextLinks: true,
  // The text's HTML rendering: nothing here reads it.
  skipTextToHtml: true,
};

/** Removes the attachments' files; safe to call twice. */
export async function removeAttachments(message: ParsedMessage) {
  await Promise.all(message.attachments.map((attachment) => attachment.file.remove()));
}

/**
 * The message's subject, text and attachments. The caller removes the
 * attachments' files once done (removeAttachments); on a failure here they
 * are already gone.
 */
export async function parseMessage(source: Readable): Promise<ParsedMessage> {
  // Loaded on the first message, not at every start (docs/decisions/0083-one-build.md).
  const { MailParser } = await import("mailparser");
  const parser = new MailParser(OPTIONS);
  const message: ParsedMessage = { attachments: [] };
  parser.on("headers", (headers) => {
    const subject = headers.get("subject");
    if (typeof subject === "string") message.subject = subject;
  });
  source.on("error", (error) => parser.destroy(error));
  source.pipe(parser);
  try {
    for await (const data of parser as AsyncIterable<AttachmentStream | MessageText>) {
      if (data.type === "text") {
        message.text = data.text;
        continue;
      }
      const file = await spoolToFile(data.content as Readable, {
        maxBytes: LIMITS.saveByEmail.maxMessageBytes,
      });
      // Pushed first: removed with the others if the parse fails after it.
      message.attachments.push({
        contentType: data.contentType,
        filename: data.filename,
        related: data.related,
        file,
      });
      data.release?.();
    }
  } catch (error) {
    await removeAttachments(message);
    throw error;
  } finally {
    source.destroy();
  }
  return message;
}
