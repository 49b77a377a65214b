import { waitForBackgroundWork } from "~/lifecycle.server";
import { closeMailer } from "~/modules/sending/mailer.server";
import { runSchedulerPass } from "~/modules/sending/sending.server";
import { db } from "~/platform/db.server";

/** `npm run send:due`: one scheduler pass by hand (safe beside a running server). */
const result = await runSchedulerPass();
console.log(`Opened ${result.opened} sends, delivered ${result.messages} messages`);
await waitForBackgroundWork();
await closeMailer();
db.$client.close();
