import fs from "node:fs";
import path from "node:path";
import { type ParsedMail, simpleParser } from "mailparser";

export type ReceivedMail = ParsedMail & { to: string; file: string };

function recipientsOf(mail: ParsedMail) {
  const to = Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : [];
  return to.flatMap((address) => address.value.map((entry) => entry.address?.toLowerCase() ?? ""));
}

/** Every message the mail catcher received for this address, oldest first. */
export async function mailsTo(address: string): Promise<ReceivedMail[]> {
  const directory = process.env.E2E_MAIL_DIR!;
  const files = fs
    .readdirSync(directory)
    .filter((name) => name.endsWith(".eml"))
    .sort();
  const found: ReceivedMail[] = [];
  for (const file of files) {
    const mail = await simpleParser(fs.readFileSync(path.join(directory, file)));
    if (recipientsOf(mail).includes(address.toLowerCase())) {
      found.push(Object.assign(mail, { to: address, file }));
    }
  }
  return found;
}

/** Waits for the n-th message to an address (1-based) whose subject matches. */
export async function waitForMail(
  address: string,
  subject: RegExp,
  { count = 1, timeoutMs = 10_000 } = {},
): Promise<ReceivedMail> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const matching = (await mailsTo(address)).filter((mail) => subject.test(mail.subject ?? ""));
    if (matching.length >= count) return matching[count - 1]!;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`No e-mail #${count} to ${address} matching ${subject} within ${timeoutMs} ms`);
}

/** The first link in the plain-text part that starts with the given path. */
export function linkIn(mail: ReceivedMail, pathPrefix: string): string {
  const pattern = new RegExp(`https?://[^\\s\\]>"]+${pathPrefix.replace("/", "\\/")}[^\\s\\]>"]*`);
  const match = pattern.exec(mail.text ?? "") ?? pattern.exec(String(mail.html ?? ""));
  if (!match) throw new Error(`No ${pathPrefix} link in "${mail.subject}"`);
  return match[0].replaceAll("&amp;", "&");
}
