import { parseWithZod } from "@conform-to/zod/v4";
import { data } from "@remix-run/node";
import { type MailEndpoint, refuseMailBurst } from "~/platform/mail-limits.server";
import { EmailLinkRequestSchema } from "./user-validation";

/**
 * The action of the pages that e-mail a link to an address someone types
 * (forgot password, resend verification), given the form the route read
 * with its CSRF check: the same answer whether or not the
 * address has an account, so the page reveals nothing, and the mail limits
 * applied before anything is sent.
 */
export async function answerEmailLinkRequest(
  request: Request,
  formData: FormData,
  endpoint: MailEndpoint,
  sendLink: (email: string) => void,
) {
  const submission = parseWithZod(formData, { schema: EmailLinkRequestSchema });
  if (submission.status !== "success") {
    return data({ sent: false as const, result: submission.reply() }, { status: 400 });
  }
  const refused = await refuseMailBurst(endpoint, request, submission.value.email);
  if (refused) {
    return data(
      { sent: false as const, result: submission.reply({ formErrors: [refused] }) },
      { status: 429 },
    );
  }
  sendLink(submission.value.email);
  return data({ sent: true as const, result: null });
}
