import path from "node:path";
import { eq } from "drizzle-orm";
import { hashPassword } from "~/utils/password.server";
import { nextSendAt } from "~/utils/schedule.server";
import { openDatabase } from "./connection";
import { contentItems, folders, type Recipient, users } from "./schema";

/**
 * `npm run db:seed`: a demo sender with three folders and a few saved items, so
 * a fresh install has something to look at. Runs once: if the demo user is
 * already there it changes nothing. Reads only DATABASE_PATH.
 */
const DEMO_EMAIL = "demo@thoughtfully.local";
const DEMO_PASSWORD = "thoughtfully-demo";
const DEMO_TIME_ZONE = "Europe/London";

type FolderSeed = {
  name: string;
  recipients: Recipient[];
  frequency: "weekly" | "monthly";
  dayOfWeek: number;
  dayOfMonth: number | null;
  personalSignoff: string;
};

const folderSeeds: FolderSeed[] = [
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

async function seed() {
  const databasePath = process.env.DATABASE_PATH || "./data/app.db";
  const db = openDatabase(databasePath);
  try {
    const existing = db
      .select({ id: users.id })
      .from(users)
      .where(eq(users.email, DEMO_EMAIL))
      .get();
    if (existing) {
      console.log(
        `Demo user ${DEMO_EMAIL} already exists in ${path.resolve(databasePath)}; nothing to do.`,
      );
      return;
    }

    // Hash before the transaction: better-sqlite3 transactions must be synchronous.
    const passwordHash = await hashPassword(DEMO_PASSWORD);

    const created = db.transaction(
      (tx) => {
        // Checked again under the write lock, in case another seed ran meanwhile.
        if (tx.select({ id: users.id }).from(users).where(eq(users.email, DEMO_EMAIL)).get()) {
          return null;
        }
        const user = tx
          .insert(users)
          .values({
            email: DEMO_EMAIL,
            firstName: "Demo",
            lastName: "Sender",
            passwordHash,
            emailVerified: true,
            timeZone: DEMO_TIME_ZONE,
          })
          .returning({ id: users.id })
          .get();

        const folderIds = folderSeeds.map(
          (seed, sortOrder) =>
            tx
              .insert(folders)
              .values({
                userId: user.id,
                sortOrder,
                ...seed,
                nextSendAt: nextSendAt(seed, DEMO_TIME_ZONE, new Date()),
              })
              .returning({ id: folders.id })
              .get().id,
        );
        const [family, bookClub, oldFriends] = folderIds as [number, number, number];

        const items = tx
          .insert(contentItems)
          .values([
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
          ])
          .returning({ id: contentItems.id })
          .all();

        return { userId: user.id, folders: folderIds.length, items: items.length };
      },
      { behavior: "immediate" },
    );

    if (!created) {
      console.log(`Demo user ${DEMO_EMAIL} was created meanwhile; nothing to do.`);
      return;
    }
    console.log(`Seeded ${path.resolve(databasePath)}:`);
    console.log(`  user #${created.userId} ${DEMO_EMAIL} (Demo Sender, Europe/London)`);
    console.log(
      `  ${created.folders} folders: ${folderSeeds.map((seed) => `${seed.name} (${seed.frequency})`).join(", ")}`,
    );
    console.log(`  ${created.items} saved items`);
    console.log(`Log in with ${DEMO_EMAIL} / ${DEMO_PASSWORD}`);
  } finally {
    db.$client.close();
  }
}

await seed();
