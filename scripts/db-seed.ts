import path from "node:path";
import { openDatabase } from "#db/connection";
import { DEMO_EMAIL, DEMO_PASSWORD, folderSeeds, seedDemoSender } from "#db/seed";
import { hashPassword } from "~/modules/auth/password.server";
import { nextSendAt } from "~/modules/folders/schedule.server";

/**
 * `npm run db:seed`: the demo sender of db/seed.ts, created once. Reads only
 * DATABASE_PATH.
 */
const databasePath = process.env.DATABASE_PATH || "./data/app.db";
const database = openDatabase(databasePath);
try {
  // Hashed before the transaction: better-sqlite3 transactions must be synchronous.
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  const created = seedDemoSender(database, {
    passwordHash,
    nextSendAt: (seed, timeZone) => nextSendAt(seed, timeZone, new Date()),
  });
  if (!created) {
    console.log(
      `Demo user ${DEMO_EMAIL} already exists in ${path.resolve(databasePath)}; nothing to do.`,
    );
  } else {
    console.log(`Seeded ${path.resolve(databasePath)}:`);
    console.log(`  user #${created.userId} ${DEMO_EMAIL} (Demo Sender, Europe/London)`);
    console.log(
      `  ${created.folders} folders: ${folderSeeds.map((seed) => `${seed.name} (${seed.frequency})`).join(", ")}`,
    );
    console.log(`  ${created.items} saved items`);
    console.log(`Log in with ${DEMO_EMAIL} / ${DEMO_PASSWORD}`);
  }
} finally {
  database.$client.close();
}
