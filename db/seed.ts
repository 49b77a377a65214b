import { eq } from "drizzle-orm";
import type { AppDatabase } from "./connection";
import { createFolder, createItem, createUser } from "./factories";
import { type contentItems, type Recipient, users } from "./schema";

/**
 * The demo data of `npm run db:seed` (scripts/db-seed.ts): a sender with three
 * folders and a few saved items, so a fresh install has something to look at.
 * The app's rules it needs (the password hash, the next delivery time) are
 * handed in, so db/ stays below the app.
 */
export const DEMO_EMAIL = "demo@thoughtfully.local";
export const DEMO_PASSWORD = "thoughtfully-demo";
export const DEMO_TIME_ZONE = "Europe/London";

export type FolderSeed = {
  name: string;
  recipients: Recipient[];
  frequency: "weekly" | "monthly";
  dayOfWeek: number;
  dayOfMonth: number | null;
  personalSignoff: string;
};

export const folderSeeds: FolderSeed[] = [
  {
    name: "Family",
    recipients: [
      { name: "Mum", email: "mum@example.com" },
      { name: "Sam", email: "sam@example.com" },
    ],
    frequency: "weekly",
    dayOfWeek: 7,
    dayOfMonth: null,
    personalSignoff: "Love, Demo",
  },
  {
    name: "Book club",
    recipients: [
      { name: "Priya", email: "priya@example.com" },
      { name: "Tom", email: "tom@example.com" },
      { name: "Ana", email: "ana@example.com" },
    ],
    frequency: "monthly",
    dayOfWeek: 1,
    dayOfMonth: 1,
    personalSignoff: "Happy reading!",
  },
  {
    name: "Old friends",
    recipients: [{ name: "Jo", email: "jo@example.com" }],
    frequency: "weekly",
    dayOfWeek: 5,
    dayOfMonth: null,
    personalSignoff: "Speak soon",
  },
];

/**
 * Creates the demo sender once. Returns what it created, or null when the demo
 * user is already there (checked again under the write lock, in case another
 * seed ran meanwhile).
 */
export function seedDemoSender(
  database: AppDatabase,
  rules: { passwordHash: string; nextSendAt: (seed: FolderSeed, timeZone: string) => Date },
) {
  return database.transaction(
    (tx) => {
      if (tx.select({ id: users.id }).from(users).where(eq(users.email, DEMO_EMAIL)).get()) {
        return null;
      }
      const user = createUser(tx, {
        email: DEMO_EMAIL,
        firstName: "Demo",
        lastName: "Sender",
        passwordHash: rules.passwordHash,
        timeZone: DEMO_TIME_ZONE,
      });

      const folderIds = folderSeeds.map(
        (seed, sortOrder) =>
          createFolder(tx, user.id, {
            sortOrder,
            ...seed,
            nextSendAt: rules.nextSendAt(seed, DEMO_TIME_ZONE),
          }).id,
      );
      const [family, bookClub, oldFriends] = folderIds as [number, number, number];

      const items = (
        [
          {
            folderId: family,
            type: "link",
            title: "The best banana bread, finally",
            urls: ["https://example.com/recipes/banana-bread"],
            addComment: true,
            commentText: "Made this on Sunday. Less sugar than it says works fine.",
            sortOrder: 0,
          },
          {
            folderId: family,
            type: "musing",
            title: "Garden update",
            note: "The tomatoes are finally turning red. Come and pick some next time you visit.",
            sortOrder: 1,
          },
          {
            folderId: bookClub,
            type: "link",
            title: "Interview with this month's author",
            urls: ["https://example.com/interviews/author", "https://example.com/reviews/book"],
            addComment: true,
            commentText: "The part about the ending changed how I read the last chapter.",
            sortOrder: 0,
          },
          {
            folderId: oldFriends,
            type: "musing",
            title: "Remember the camping trip?",
            note: "Found the photos from that rainy weekend. Ten years ago this month!",
            sortOrder: 0,
          },
        ] satisfies (typeof contentItems.$inferInsert)[]
      ).map(({ folderId, ...values }) => createItem(tx, folderId, values));

      return { userId: user.id, folders: folderIds.length, items: items.length };
    },
    { behavior: "immediate" },
  );
}
