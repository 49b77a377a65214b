import { sendNow } from "~/modules/sending/sending.server";
import { db } from "~/platform/db.server";
import { closeMailer } from "~/platform/mailer.server";

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
