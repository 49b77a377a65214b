import { openDatabase } from "#db/connection";
import { createFolder, createUser } from "#db/factories";
import { contentItems } from "#db/schema";

/** The dashboard the benchmark loads: 5 folders, 50 items in the first. */
export const FOLDER_NAMES = ["Family news", "Book club", "Old friends", "Running crew", "Work-ish"];
export const FOLDER_COUNT = FOLDER_NAMES.length;
export const ITEM_COUNT = 50;

/** One verified sender, 5 folders, 50 unsent items in the first; returns what the requests need. */
export function seedDashboard(databasePath: string) {
  const db = openDatabase(databasePath);
  try {
    return db.transaction((tx) => {
      const user = createUser(tx, {
        email: "bench@example.com",
        firstName: "Bench",
        lastName: "Mark",
        emailVerified: true,
        timeZone: "Europe/London",
      });
      const folderRows = FOLDER_NAMES.map((name, index) =>
        createFolder(tx, user.id, {
          name,
          recipients: [
            { name: "Mum", email: `mum${index}@example.com` },
            { name: "Sam", email: `sam${index}@example.com` },
          ],
          frequency: "weekly",
          dayOfWeek: index + 1,
          nextSendAt: new Date(Date.now() + (index + 2) * 24 * 60 * 60 * 1000),
          sortOrder: index,
        }),
      );
      const first = folderRows[0]!;
      tx.insert(contentItems)
        .values(
          Array.from({ length: ITEM_COUNT }, (_, index) =>
            index % 3 === 2
              ? {
                  folderId: first.id,
                  type: "musing" as const,
                  title: `Musing ${index + 1}`,
                  note: "The tomatoes are finally turning red. Come and pick some next time you visit.",
                  sortOrder: index,
                }
              : {
                  folderId: first.id,
                  type: "link" as const,
                  title: `An article worth reading, number ${index + 1}`,
                  urls: [
                    `https://example.com/articles/${index + 1}`,
                    `https://example.org/reviews/${index + 1}`,
                  ],
                  addComment: true,
                  commentText: "Made me think of you. The second link is the follow-up piece.",
                  sortOrder: index,
                },
          ),
        )
        .run();
      return { user, firstFolder: first };
    });
  } finally {
    db.$client.close();
  }
}
