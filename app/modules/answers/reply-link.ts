/**
 * A "Reply" link to a recipient who wrote a note: it opens the sender's own
 * mail app, so the conversation goes on in their own mail
 * (docs/decisions/0159-recipients-answer-back.md). The address is
 * percent-encoded but for its "@" (RFC 6068), so an address holding "?", "&"
 * or "%" cannot add fields of its own.
 */
export function replyMailto(email: string, itemTitle: string) {
  const to = encodeURIComponent(email).replace("%40", "@");
  return `mailto:${to}?subject=${encodeURIComponent(`Re: ${itemTitle}`)}`;
}
