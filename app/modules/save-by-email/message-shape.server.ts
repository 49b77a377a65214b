import type { Readable } from "node:stream";
import type { Headers, MailParserOptions } from "mailparser";
import { LIMITS } from "~/modules/plans/limits";

/**
 * What can be learnt of a message before it is parsed whole
 * (docs/decisions/0178-smtp-mail-spooled-and-parsed-under-the-memory-budget.md):
 * its shape (parts, text bytes, header sections within their bound), counted
 * by mailparser's own MIME splitter as the bytes stream past, nothing kept;
 * and its header section, read by mailparser as the message starts, the body
 * left unread. Each reads its own stream of the message and closes it.
 */
export type ShapeProblem =
  | "header section too large"
  | "too many parts"
  | "text too long"
  | "malformed message";

export type MessageShape = { parts: number; textBytes: number };

/** mailparser hands these to its splitter; its types do not list them. */
type SplitterLimits = { maxHeadSize: number };

const limits: SplitterLimits = { maxHeadSize: LIMITS.saveByEmail.maxHeaderBytes };

/** The splitter's code for a bound passed: here only the header section's. */
function headerTooLarge(error: unknown) {
  return (error as { code?: string } | null)?.code === "EMAXLEN";
}

/**
 * The message's own header fields, as mailparser reads them; the rest of the
 * stream is not read. For a message measureMessage passed: mailparser drops
 * the splitter's header bound when the whole message has already come in, so
 * this is not where that bound is told.
 */
export async function readHeaders(source: Readable): Promise<Headers | ShapeProblem> {
  const { MailParser } = await import("mailparser");
  const options: MailParserOptions & SplitterLimits = { ...limits };
  const parser = new MailParser(options);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Headers | ShapeProblem) => {
      if (settled) return;
      settled = true;
      source.unpipe(parser);
      source.destroy();
      parser.destroy();
      resolve(result);
    };
    parser.on("headers", (headers: Headers) => finish(headers));
    // Listened to for good: a parser or file torn down early may still report.
    parser.on("error", (error) =>
      finish(headerTooLarge(error) ? "header section too large" : "malformed message"),
    );
    source.on("error", () => finish("malformed message"));
    // All written and no header section came of it.
    parser.on("finish", () => finish("malformed message"));
    source.pipe(parser);
  });
}

/** The types mailparser reads as the message's text, unless sent as an attachment. */
const TEXT_TYPES = new Set(["text/plain", "text/html", "message/delivery-status"]);

type SplitNode = { contentType: string | false; disposition: string | false };

function isText(node: SplitNode) {
  // A part without a Content-Type is text/plain (RFC 2045).
  const type = node.contentType || "text/plain";
  return TEXT_TYPES.has(type) && (!node.disposition || node.disposition === "inline");
}

/**
 * The message's MIME parts and the bytes of its text parts (as sent, still
 * encoded), or the bound it passes: more than `maxParts` parts, more than
 * `maxTextBytes` of text, a header section over `maxHeaderBytes`.
 */
export async function measureMessage(source: Readable): Promise<MessageShape | ShapeProblem> {
  const { Splitter } = await import("@zone-eu/mailsplit");
  const splitter = new Splitter(limits);
  source.on("error", (error) => splitter.destroy(error));
  source.pipe(splitter);
  const shape: MessageShape = { parts: 0, textBytes: 0 };
  try {
    for await (const chunk of splitter) {
      if (chunk.type === "node") {
        shape.parts += 1;
        if (shape.parts > LIMITS.saveByEmail.maxParts) return "too many parts";
      } else if (chunk.type === "body" && isText(chunk.node)) {
        shape.textBytes += chunk.value.length;
        if (shape.textBytes > LIMITS.saveByEmail.maxTextBytes) return "text too long";
      }
    }
  } catch (error) {
    return headerTooLarge(error) ? "header section too large" : "malformed message";
  } finally {
    source.destroy();
  }
  return shape;
}
