/**
 * Priority support is an address marked Premium: the support address with a
 * "+premium" tag (support+premium@…), which lands in the same mailbox and
 * lets a filter put Premium senders' mail first. No form, so nothing to
 * rate-limit here (docs/decisions/0065-newsletter-templates-and-branding.md).
 */
export function prioritySupportAddress(supportEmail: string) {
  const at = supportEmail.lastIndexOf("@");
  const local = supportEmail.slice(0, at).split("+")[0];
  return `${local}+premium${supportEmail.slice(at)}`;
}

/** How soon a Premium sender's message is answered, as promised on the pages. */
export const PRIORITY_SUPPORT_PROMISE = "answered first, within one working day";
