import { eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import { folders, sendLedger } from "#db/schema";
import { startSmtpSink } from "../support/integration";

/**
 * The few words for one issue (docs/decisions/0212-a-note-for-one-issue.md):
 * carried at the top of every copy of the send that opens next, and cleared by
 * that send's finish, never before and never a note written meanwhile.
 */
const sink = await startSmtpSink();
const { db } = await import("~/platform/db.server");
const { runSchedulerPass, sendNow } = await import("~/modules/sending/sending.server");
const { setIssueNote } = await import("~/modules/folders/issue-note.server");
const { renderPreview } = await import("~/modules/sending/preview.server");

const NOTE = "Big week: Sam started school.";
let counter = 0;

function dueFolder(recipients: string[], values: Partial<typeof folders.$inferInsert> = {}) {
  counter += 1;
  const sender = createUser(db);
  const folder = createFolder(db, sender.id, {
    name: `Family ${counter}`,
    recipients: recipients.map((email, index) => ({ name: `R${index}`, email })),
    nextSendAt: new Date(Date.now() - 60_000),
    ...values,
  });
  return { sender, folder };
}

const folderNow = (id: number) => db.select().from(folders).where(eq(folders.id, id)).get()!;

test("the note opens every copy, in its HTML and text, above the first item, and then clears", async () => {
  const { sender, folder } = dueFolder(["note-a@example.com", "note-b@example.com"]);
  createItem(db, folder.id, { title: "Sunday lunch" });
  setIssueNote(sender.id, folder.id, NOTE);
  expect(renderPreview(folderNow(folder.id), sender)!.html).toContain(NOTE);

  await runSchedulerPass();
  for (const address of ["note-a@example.com", "note-b@example.com"]) {
    const [mail] = sink.to(address);
    const html = String(mail!.html);
    expect(html.indexOf(NOTE)).toBeGreaterThan(-1);
    expect(html.indexOf(NOTE)).toBeLessThan(html.indexOf("Sunday lunch"));
    expect(mail!.text!.indexOf(NOTE)).toBeLessThan(mail!.text!.indexOf("Sunday lunch"));
  }
  expect(folderNow(folder.id).issueNote).toBeNull();
  const ledger = db.select().from(sendLedger).where(eq(sendLedger.folderId, folder.id)).get()!;
  expect(ledger.issueNote).toBe(NOTE);

  // The next issue has no note.
  createItem(db, folder.id, { title: "Monday walk" });
  await sendNow(sender.id, folder.id);
  expect(String(sink.to("note-a@example.com")[1]!.html)).not.toContain(NOTE);
});

test("a retry carries the note the send opened with; a note written meanwhile waits for the next issue", async () => {
  sink.refuse.set("note-later@example.com", 451);
  const { sender, folder } = dueFolder(["note-later@example.com", "note-now@example.com"]);
  createItem(db, folder.id);
  setIssueNote(sender.id, folder.id, NOTE);
  await runSchedulerPass();
  expect(String(sink.to("note-now@example.com")[0]!.html)).toContain(NOTE);
  // Still sending: the note stays on the folder until the send is done.
  expect(folderNow(folder.id).issueNote).toBe(NOTE);

  setIssueNote(sender.id, folder.id, "For next time");
  await runSchedulerPass(new Date(Date.now() + 6 * 60_000));
  const retried = String(sink.to("note-later@example.com")[0]!.html);
  expect(retried).toContain(NOTE);
  expect(retried).not.toContain("For next time");
  expect(folderNow(folder.id).issueNote).toBe("For next time");
});

test("a note stays when nothing is sent: an empty folder's skipped occurrence or a send that reached nobody", async () => {
  const empty = dueFolder(["note-empty@example.com"]);
  setIssueNote(empty.sender.id, empty.folder.id, NOTE);
  await runSchedulerPass();
  expect(folderNow(empty.folder.id).issueNote).toBe(NOTE);

  sink.refuse.set("note-gone@example.com", 550);
  const bounced = dueFolder(["note-gone@example.com"]);
  createItem(db, bounced.folder.id);
  setIssueNote(bounced.sender.id, bounced.folder.id, NOTE);
  await runSchedulerPass();
  expect(folderNow(bounced.folder.id).issueNote).toBe(NOTE);
});

test("another sender's folder takes no note", () => {
  const { folder } = dueFolder(["note-other@example.com"]);
  const stranger = createUser(db);
  expect(() => setIssueNote(stranger.id, folder.id, NOTE)).toThrow();
  expect(folderNow(folder.id).issueNote).toBeNull();
});
