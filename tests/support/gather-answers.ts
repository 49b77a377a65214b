import { gatherAnswers } from "~/modules/answers/answer-mail.server";
import { db } from "~/platform/db.server";
import { closeMailer } from "~/platform/mailer.server";

/**
 * One run of the answer-mail job (app/lifecycle.server.ts runs it every
 * minute), in a process of its own: the production `gatherAnswers`.
 */
const result = await gatherAnswers();
console.log(JSON.stringify(result));
await closeMailer();
db.$client.close();
