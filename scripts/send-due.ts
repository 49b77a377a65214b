import { runSchedulerPass } from "~/modules/sending/sending.server";
import { waitForBackgroundWork } from "~/platform/background-work.server";
import { db } from "~/platform/db.server";
import { closeMailer } from "~/platform/mailer.server";

/** `npm run send:due`: one scheduler pass by hand (safe beside a running server). */
const result = await runSchedulerPass();
console.log(`Opened ${result.opened} sends, delivered ${result.messages} messages`);
await waitForBackgroundWork();
await closeMailer();
db.$client.close();
