import { pluralize } from "~/utils/format";

/**
 * The line that counts who will get a folder's next issue
 * (docs/decisions/0210-counts-that-are-true.md): "3 recipients" when all
 * will, "2 of 3 will get it: Mum's address bounced" when some will not, and
 * "No active recipients" when none is left. Names as the folder lists them.
 */
export type MissedRecipient = {
  name: string;
  email: string;
  because: "unsubscribed" | "complaint" | "bounced";
};

function whoIs(recipient: { name: string; email: string }) {
  const name = recipient.name.trim();
  return name && name !== "recipient" ? name : recipient.email;
}

function why(recipient: MissedRecipient) {
  const who = whoIs(recipient);
  switch (recipient.because) {
    case "bounced":
      return `${who}'s address bounced`;
    case "complaint":
      return `${who} reported spam`;
    case "unsubscribed":
      return `${who} unsubscribed`;
  }
}

export function nextIssueLine(reach: {
  listed: number;
  reaching: number;
  missing: MissedRecipient[];
}) {
  if (reach.listed === 0 || reach.reaching === 0) return "No active recipients";
  if (reach.missing.length === 0) {
    return pluralize(reach.listed, "recipient");
  }
  return `${reach.reaching} of ${reach.listed} will get it: ${reach.missing.map(why).join(", ")}`;
}

/**
 * Who left a folder every recipient unsubscribed from, for its sender's card,
 * folder page and e-mail (docs/decisions/0249-the-sender-told-when-the-last-recipient-leaves.md):
 * "Dad unsubscribed", "Mum and Dad unsubscribed", "Mum, Dad and Gran unsubscribed". Never why:
 * the reason is the recipient's own (docs/decisions/0045-recipients-privacy.md).
 */
export function everyoneLeftLine(recipients: { name: string; email: string }[]) {
  const names = recipients.map(whoIs);
  const last = names.pop();
  return `${names.length > 0 ? `${names.join(", ")} and ${last}` : (last ?? "Everyone")} unsubscribed`;
}
