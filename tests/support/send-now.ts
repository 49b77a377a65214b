import { db } from "~/utils/db.server";
import { closeMailer } from "~/utils/mailer.server";
import { sendNow } from "~/utils/sending.server";

/**
 * Send Now in a process of its own, for the crash tests: the production
 * `sendNow` that the folder page's action calls, for user and folder ids
 * given as arguments.
 */
const [userId, folderId] = process.argv.slice(2).map(Number);
const result = await sendNow(userId!, folderId!);
console.log(JSON.stringify(result));
await closeMailer();
db.$client.close();
