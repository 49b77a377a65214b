import fs from "node:fs";
import { simpleParser } from "mailparser";
import { expect, test } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import { getFolder } from "~/modules/folders/folders.server";
import { db } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import { renderPreview, sendTestEmail } from "./preview.server";
import { unsentItems } from "./sending.server";

let counter = 0;
const request = () => new Request("http://localhost:3000/folders/1/preview", { method: "POST" });

function sender(values: { emailVerified: boolean }) {
  counter += 1;
  const user = createUser(db, { email: `preview-test-${counter}@example.com`, ...values });
  const folder = getFolder(user.id, createFolder(db, user.id).id);
  return { user, folder };
}

async function mailsTo(email: string) {
  if (!fs.existsSync(env.OUTBOX_DIR)) return [];
  const found = [];
  for (const file of fs.readdirSync(env.OUTBOX_DIR)) {
    const mail = await simpleParser(fs.readFileSync(`${env.OUTBOX_DIR}/${file}`));
    if ([mail.to].flat().some((address) => address?.text.includes(email))) found.push(mail);
  }
  return found;
}

test("the test copy goes to the sender alone, marked [Test], and leaves the folder as it was", async () => {
  const { user, folder } = sender({ emailVerified: true });
  createItem(db, folder.id, { title: "Sunday lunch" });
  expect(await sendTestEmail(request(), folder, user)).toEqual({ outcome: "sent" });
  const [mail, ...more] = await mailsTo(user.email);
  expect(more).toEqual([]);
  expect(mail?.subject).toMatch(/^\[Test\] /);
  expect(mail?.text).toContain("Sunday lunch");
  expect(await mailsTo("mum@example.com")).toEqual([]);
  expect(unsentItems(folder.id)).toHaveLength(1);
});

test("the test copy's answer links point nowhere, each item's in its place", async () => {
  const { user, folder } = sender({ emailVerified: true });
  createItem(db, folder.id, { title: "Sunday lunch" });
  createItem(db, folder.id, { title: "The garden" });
  expect(await sendTestEmail(request(), folder, user)).toEqual({ outcome: "sent" });
  const [mail] = await mailsTo(user.email);
  expect(
    String(mail?.html).match(/<a href="#answer-preview">♥ Send [^<]+ a heart or a note</g),
  ).toHaveLength(2);
  expect(mail?.text?.match(/♥ Send .+ a heart or a note \[#answer-preview\]/g)).toHaveLength(2);
});

test("Gmail's clipping is judged on a recipient's copy, whose answer links are longer", () => {
  const { user, folder } = sender({ emailVerified: true });
  for (let index = 0; index < 50; index += 1) createItem(db, folder.id);
  const preview = renderPreview(folder, user)!;
  // "%%ANSWER_URL:<id>%%" in the rendering, http://localhost:3000/a/<code> in a copy: over 30 bytes more per item.
  expect(preview.copyHtmlBytes - preview.rendered.htmlBytes).toBeGreaterThan(50 * 30);
  expect(preview.copyHtmlBytes).toBeGreaterThan(Buffer.byteLength(preview.html));
});

test("an unconfirmed address and an empty folder get nothing", async () => {
  const unconfirmed = sender({ emailVerified: false });
  createItem(db, unconfirmed.folder.id);
  expect(await sendTestEmail(request(), unconfirmed.folder, unconfirmed.user)).toEqual({
    outcome: "unverified",
  });
  const empty = sender({ emailVerified: true });
  expect(await sendTestEmail(request(), empty.folder, empty.user)).toEqual({
    outcome: "nothing-to-send",
  });
  expect(await mailsTo(unconfirmed.user.email)).toEqual([]);
  expect(await mailsTo(empty.user.email)).toEqual([]);
});

test("past the hourly limit the sender is told when to try again, and nothing more is sent", async () => {
  const { user, folder } = sender({ emailVerified: true });
  createItem(db, folder.id);
  let test = await sendTestEmail(request(), folder, user);
  let sent = 0;
  while (test.outcome === "sent" && sent < 20) {
    sent += 1;
    test = await sendTestEmail(request(), folder, user);
  }
  expect(sent).toBeGreaterThan(0);
  expect(test).toMatchObject({
    outcome: "too-many",
    retryMessage: expect.stringMatching(/try again/),
  });
  expect(await mailsTo(user.email)).toHaveLength(sent);
});
