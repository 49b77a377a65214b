import { simpleParser } from "mailparser";
import MailComposer from "nodemailer/lib/mail-composer/index.js";
import { describe, expect, test } from "vitest";
import { listIdHeader } from "./list-id.server";

/** The raw header as a message built by nodemailer carries it, unfolded. */
async function rawListId(folder: { id: number; name: string }) {
  const raw = await new MailComposer({
    from: "hello@thoughtfully.test",
    to: "mum@example.test",
    subject: "Family",
    text: "Hello",
    headers: { "List-ID": listIdHeader(folder, "thoughtfully.test") },
  })
    .compile()
    .build();
  const source = raw.toString("utf8");
  const match = /^List-ID: (.*(?:\r\n[ \t].*)*)/im.exec(source);
  return { header: match?.[1]?.replace(/\r\n[ \t]/g, " "), source };
}

describe("listIdHeader", () => {
  test("an ASCII name is a quoted phrase before the readable <id> (RFC 2919)", async () => {
    const { header } = await rawListId({ id: 12, name: "Family" });
    expect(header).toBe('"Family" <folder-12.thoughtfully.test>');
  });

  test("quotes, backslashes and line breaks in a name cannot break the header", async () => {
    const { header } = await rawListId({ id: 3, name: 'Mum "and"\r\nBcc: x@evil.test \\ Dad' });
    expect(header).toBe('"Mum andBcc: x@evil.test  Dad" <folder-3.thoughtfully.test>');
  });

  test("a non-ASCII name is encoded, and the id stays readable to mail apps", async () => {
    const name = "Famille à São Paulo, with a name long enough to need two encoded words";
    const { header, source } = await rawListId({ id: 7, name });
    expect(header).toMatch(/^=\?UTF-8\?Q\?.+\?= <folder-7\.thoughtfully\.test>$/);
    const parsed = await simpleParser(source);
    const list = parsed.headers.get("list") as { id?: { id?: string } } | undefined;
    expect(list?.id?.id).toBe("folder-7.thoughtfully.test");
  });
});
