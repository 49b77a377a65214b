import { db } from "~/utils/db.server";
import { waitForBackgroundWork } from "~/utils/lifecycle.server";
import { closeMailer } from "~/utils/mailer.server";
import { runSchedulerPass } from "~/utils/sending.server";

/** `npm run send:due`: one scheduler pass by hand (safe beside a running server). */
const result = await runSchedulerPass();
console.log(`Opened ${result.opened} sends, delivered ${result.messages} messages`);
await waitForBackgroundWork();
await closeMailer();
db.$client.close();
