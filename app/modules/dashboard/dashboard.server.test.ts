import { describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { contentItems, folderRecipientStates } from "#db/schema";
import { createAnswer, createSentIssue } from "#db/sent-issue-factories";
import { dismissBannerCookie } from "~/modules/accounts/preferences.server";
import { markAnswersSeen } from "~/modules/answers/answers.server";
import { FolderNotFoundError } from "~/modules/folders/folders.server";
import { db } from "~/platform/db.server";
import { loadDashboard, loadDashboardPage } from "./dashboard.server";

function addItems(folderId: number, count: number) {
  if (count === 0) return;
  db.insert(contentItems)
    .values(
      Array.from({ length: count }, (_, index) =>
        index % 2 === 0
          ? {
              folderId,
              type: "link" as const,
              title: `Link ${index}`,
              urls: [`https://example.com/${index}`, `https://example.org/${index}`],
              addComment: true,
              commentText: "Worth a read.",
              sortOrder: index,
            }
          : {
              folderId,
              type: "musing" as const,
              title: `Musing ${index}`,
              note: "A thought.",
              sortOrder: index,
            },
      ),
    )
    .run();
}

/** A user with `folderCount` folders of `itemsEach` unsent items; returns the user and folders. */
function createSender(folderCount: number, itemsEach: number) {
  const user = createUser(db);
  const created = Array.from({ length: folderCount }, (_, index) => {
    const folder = createFolder(db, user.id, { name: `Folder ${index + 1}`, sortOrder: index });
    addItems(folder.id, itemsEach);
    return folder;
  });
  return { user, folders: created };
}

/**
 * Counts the SQL statements `work` runs by instrumenting the SQLite driver's
 * statements: prepared once or each time, every run goes through one of these.
 */
function countStatements<T>(work: () => T) {
  const statementPrototype = Object.getPrototypeOf(db.$client.prepare("select 1"));
  const methods = ["all", "get", "run", "iterate"] as const;
  const originals = methods.map((method) => statementPrototype[method]);
  let statements = 0;
  methods.forEach((method, index) => {
    statementPrototype[method] = function (this: unknown, ...args: unknown[]) {
      statements += 1;
      return originals[index].apply(this, args);
    };
  });
  try {
    const result = work();
    return { result, statements };
  } finally {
    methods.forEach((method, index) => {
      statementPrototype[method] = originals[index];
    });
  }
}

describe("loadDashboard", () => {
  test("runs the same number of statements for 1 folder of 1 item and 5 folders of 50 items", () => {
    const small = createSender(1, 1);
    const large = createSender(5, 50);

    const picks: ((sender: typeof small) => number | null)[] = [
      () => null,
      (sender) => sender.folders[0]!.id,
      (sender) => sender.folders.at(-1)!.id,
    ];
    for (const pick of picks) {
      const few = countStatements(() => loadDashboard(small.user, pick(small)));
      const many = countStatements(() => loadDashboard(large.user, pick(large)));
      expect(few.result.folders).toHaveLength(1);
      expect(few.result.items).toHaveLength(1);
      expect(many.result.folders).toHaveLength(5);
      expect(many.result.items).toHaveLength(50);
      expect(many.statements).toBeGreaterThan(0);
      expect(many.statements).toBe(few.statements);
    }
  });

  test("refuses another user's folder as if it did not exist", () => {
    const owner = createSender(1, 1);
    const other = createSender(1, 0);
    expect(() => loadDashboard(other.user, owner.folders[0]!.id)).toThrow(FolderNotFoundError);
    expect(() => loadDashboard(other.user, 999_999)).toThrow(FolderNotFoundError);
  });

  test("without a selected folder, selects the first by sort order", () => {
    const user = createUser(db);
    // Created out of order: the row inserted first sorts last.
    createFolder(db, user.id, { name: "Later", sortOrder: 2 });
    const first = createFolder(db, user.id, { name: "First", sortOrder: 0 });
    createFolder(db, user.id, { name: "Middle", sortOrder: 1 });
    addItems(first.id, 3);

    const dashboard = loadDashboard(user, null);
    expect(dashboard.folders.map((folder) => folder.name)).toEqual(["First", "Middle", "Later"]);
    expect(dashboard.selected?.id).toBe(first.id);
    expect(dashboard.items.map((item) => item.title)).toEqual(["Link 0", "Musing 1", "Link 2"]);
  });

  test("the recipients line says No active recipients once every recipient has left", () => {
    const user = createUser(db);
    const folder = createFolder(db, user.id, { name: "Mum only", sortOrder: 0 });
    expect(loadDashboard(user, folder.id).folders[0]!.recipientLabel).toBe("Mum <mum@example.com>");
    db.insert(folderRecipientStates)
      .values({
        folderId: folder.id,
        email: "mum@example.com",
        mailbox: "mum@example.com",
        status: "unsubscribed",
      })
      .run();
    expect(loadDashboard(user, folder.id).folders[0]!.recipientLabel).toBe("No active recipients");
  });

  test("a folder card counts its recipients, one included, and names the next delivery's day", () => {
    const user = createUser(db, { timeZone: "Pacific/Kiritimati" });
    const nextSendAt = new Date(Date.now() + 3 * 86_400_000);
    createFolder(db, user.id, { name: "Mum only", sortOrder: 0, nextSendAt });
    createFolder(db, user.id, {
      name: "Both",
      sortOrder: 1,
      recipients: [
        { name: "Mum", email: "mum@example.com" },
        { name: "Dad", email: "dad@example.com" },
      ],
    });
    createFolder(db, user.id, { name: "Resting", sortOrder: 2, isPaused: true });
    const folders = loadDashboard(user, null).folders;
    expect(folders.map((folder) => folder.recipientCountLabel)).toEqual([
      "1 recipient",
      "2 recipients",
      "1 recipient",
    ]);
    const day = new Intl.DateTimeFormat("en-GB", {
      timeZone: "Pacific/Kiritimati",
      weekday: "short",
      day: "numeric",
      month: "short",
    }).format(nextSendAt);
    expect(folders[0]!.nextLabel).toBe(day);
    expect(folders[2]!.nextLabel).toBe("Paused");
  });
});

describe("the count of new answers", () => {
  test("counts recipients' answers until the sender opens Save, then only newer ones", () => {
    const { user, folders } = createSender(1, 0);
    const folderId = folders[0]!.id;
    const { items, copies } = createSentIssue(db, folderId, {
      titles: ["Garden"],
      emails: ["mum@example.com"],
    });
    const answer = { userId: user.id, folderId, copy: copies[0]!, itemId: items[0]!.id };
    expect(loadDashboard(user, null).newAnswers).toBe(0);
    createAnswer(db, { ...answer, createdAt: new Date(Date.now() - 60_000) });
    createAnswer(db, { ...answer, body: "Lovely", createdAt: new Date(Date.now() - 60_000) });
    expect(loadDashboard(user, null).newAnswers).toBe(2);

    markAnswersSeen(user.id);
    expect(loadDashboard(user, null).newAnswers).toBe(0);
    createAnswer(db, { ...answer, body: "And again", createdAt: new Date(Date.now() + 1000) });
    expect(loadDashboard(user, null).newAnswers).toBe(1);
    expect(loadDashboard(createSender(1, 0).user, null).newAnswers).toBe(0);
  });
});

describe("loadDashboardPage", () => {
  const page = (cookie?: string) =>
    new Request("http://localhost/dashboard", { headers: cookie ? { Cookie: cookie } : {} });

  test("is the dashboard of the selected folder and page, with the banner state of the request", async () => {
    const { user, folders } = createSender(2, 3);
    const longStanding = { ...user, createdAt: new Date("2026-01-01T00:00:00Z") };

    const shown = await loadDashboardPage(page(), longStanding, folders[1]!.id, 1);
    expect(shown).toEqual({
      ...loadDashboard(longStanding, folders[1]!.id, 1),
      bannerDismissed: false,
    });

    const cookie = (await dismissBannerCookie()).split(";")[0]!;
    expect((await loadDashboardPage(page(cookie), longStanding)).bannerDismissed).toBe(true);
    expect((await loadDashboardPage(page(), user)).bannerDismissed).toBe(true);
  });

  test("refuses another sender's folder", async () => {
    const { folders } = createSender(1, 0);
    const stranger = createUser(db);
    await expect(loadDashboardPage(page(), stranger, folders[0]!.id)).rejects.toBeInstanceOf(
      FolderNotFoundError,
    );
  });
});
