import type { ActionFunctionArgs } from "@remix-run/node";
import { refuseOverRateLimit } from "~/modules/deliverability/relay-webhooks.server";
import {
  applyReportMessage,
  readReportMessage,
} from "~/modules/deliverability/report-messages.server";
import { LIMITS } from "~/modules/plans/limits";
import { applyInboundEmail, readInboundEmail } from "~/modules/recipients/inbound-email.server";
import { sendOwnerNoticesSoon } from "~/modules/sending/waiting-reminders.server";
import type { CrossSitePosts } from "~/platform/cross-site";
import { replayWritesToPrimary } from "~/platform/replication.server";
import type { RouteBodyLimit } from "~/platform/route-body-limit";

/**
 * Mail to MAIL_FROM's address, POSTed by whatever receives that mailbox (see
 * README, "Unsubscribing by e-mail"). Exempt from our CSRF token: senders of
 * mail have none, and the signed token in the subject is the proof. Any
 * message we can read answers 200, acted on or not, so providers do not retry
 * mail that is simply not for us. Delivery status and abuse reports
 * (multipart/report) are recorded as bounces and complaints instead.
 */
export async function loader() {
  throw new Response("Method Not Allowed", { status: 405, headers: { Allow: "POST" } });
}

/** The raw e-mail, read with the same limit (docs/decisions/0101-body-limits-by-route.md). */
export const bodyLimit: RouteBodyLimit = { any: LIMITS.inboundEmailMaxBodyBytes };

/** Posts from any site reach this action, past the cross-site gate (docs/decisions/0239-one-cross-site-gate.md). */
export const crossSitePosts: CrossSitePosts =
  "mail servers hand over mail to our address; the signed token in its subject is the proof";

export async function action({ request }: ActionFunctionArgs) {
  await replayWritesToPrimary(request);
  if (request.method !== "POST") {
    throw new Response("Method Not Allowed", { status: 405, headers: { Allow: "POST" } });
  }
  const refused = await refuseOverRateLimit(request);
  if (refused) return refused;
  const email = await readInboundEmail(request);
  if (!email) return Response.json({ error: "message too large" }, { status: 413 });
  // Bounces and abuse reports come back to the same address (docs/deploy.md, "Bounces and complaints").
  const report = email.raw ? await readReportMessage(email.raw) : null;
  if (report) return Response.json(applyReportMessage(report));
  const outcome = applyInboundEmail(email);
  // A folder whose last recipient this took has a notice for its sender; whatever else waits goes too.
  if (outcome.outcome === "unsubscribed") sendOwnerNoticesSoon();
  return Response.json(outcome);
}
