import type { ActionFunctionArgs } from "@remix-run/node";
import { refuseOverRateLimit } from "~/modules/deliverability/relay-webhooks.server";
import { receiveMail } from "~/modules/save-by-email/save-by-email.server";
import {
  readWebhookMail,
  removeWebhookMail,
  WEBHOOK_MAIL_MAX_BODY_BYTES,
  webhookAuthorized,
} from "~/modules/save-by-email/webhook-mail.server";
import type { CrossSitePosts } from "~/platform/cross-site";
import { env } from "~/platform/env.server";
import { isMemoryBudgetSpent, tryLaterResponse } from "~/platform/memory-budget.server";
import { replayWritesToPrimary } from "~/platform/replication.server";
import type { RouteBodyLimit } from "~/platform/route-body-limit";

/**
 * Mail to a folder's address, POSTed by the provider that receives
 * INBOUND_EMAIL_DOMAIN (docs/deploy.md, "Saving by e-mail") to
 * /webhooks/save-by-email, or to /webhooks/save-by-email/mime, the URL
 * Mailgun's route needs to post the whole message
 * (docs/decisions/0169-save-by-email-webhook-urls-and-signatures.md). Exempt from our
 * CSRF token: the provider's basic-auth password is the proof, and the
 * message itself must pass DMARC. Whatever becomes of a message we could
 * read, the answer is 200, so the provider does not retry it; a failure of
 * ours is a 500, which it does retry, and a retry saves nothing twice.
 */
export async function loader() {
  throw new Response("Method Not Allowed", { status: 405, headers: { Allow: "POST" } });
}

/**
 * A whole message with its attachments (docs/decisions/0101-body-limits-by-route.md),
 * spooled to disk as it arrives (readWebhookMail); with the webhook off, no
 * more than any form's body.
 */
export const bodyLimit: RouteBodyLimit = env.INBOUND_EMAIL_WEBHOOK_TOKEN
  ? { any: WEBHOOK_MAIL_MAX_BODY_BYTES, spooled: true }
  : {};

/** Posts from any site reach this action, past the cross-site gate (docs/decisions/0239-one-cross-site-gate.md). */
export const crossSitePosts: CrossSitePosts =
  "the mail provider's servers post here with the webhook's basic-auth password";

export async function action({ request }: ActionFunctionArgs) {
  await replayWritesToPrimary(request);
  if (request.method !== "POST") {
    throw new Response("Method Not Allowed", { status: 405, headers: { Allow: "POST" } });
  }
  const refused = await refuseOverRateLimit(request);
  if (refused) return refused;
  if (!webhookAuthorized(request)) {
    return Response.json({ error: "not found" }, { status: 404 });
  }
  const mail = await readWebhookMail(request);
  if (mail === "too-large") return Response.json({ error: "message too large" }, { status: 413 });
  if (mail === "bad-signature") {
    return Response.json({ error: "invalid signature" }, { status: 401 });
  }
  try {
    const outcome = await receiveMail({ ...mail, transport: null, request });
    return Response.json({ outcome: outcome.outcome });
  } catch (error) {
    // No room to parse it now: the provider posts it again later.
    if (isMemoryBudgetSpent(error)) return tryLaterResponse();
    throw error;
  } finally {
    await removeWebhookMail(mail);
  }
}
