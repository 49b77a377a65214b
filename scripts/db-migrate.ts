import path from "node:path";
import { openDatabase } from "#db/connection";

/**
 * `npm run db:migrate`: applies pending migrations to DATABASE_PATH. Reads only
 * that one variable, so it runs before the rest of the configuration is set.
 */
const databasePath = process.env.DATABASE_PATH || "./data/app.db";

const db = openDatabase(databasePath);
db.$client.close();
console.log(`Migrated ${path.resolve(databasePath)}`);
