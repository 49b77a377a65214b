import { formatBytes } from "#emails/format";
import { NEWSLETTER_TEMPLATES, TEMPLATE_LABELS } from "#emails/newsletter-themes";
import { LIMITS } from "./limits";
import { PRIORITY_SUPPORT_PROMISE } from "./priority-support";

/**
 * What Premium brings, in one list: the upgrade sheet, the dashboard's banner,
 * the profile and the welcome page all say it from here, so Premium is
 * described one way (docs/decisions/0152-premium-shown-as-it-is.md).
 * `title` is the short form (the banner); `detail` completes it.
 */
export const PREMIUM_PERKS = [
  {
    id: "unlimited",
    title: "Unlimited folders and storage",
    detail: `each folder still holds up to ${formatBytes(LIMITS.folder.maxSizeBytes)}, so every e-mail stays deliverable`,
  },
  {
    id: "frequencies",
    title: "Daily and every-two-weeks delivery",
    detail: "as well as weekly and monthly",
  },
  {
    id: "templates",
    title: "Newsletter templates",
    // Free senders' newsletters have the classic look; Premium chooses among them all.
    detail: `${NEWSLETTER_TEMPLATES.filter((template) => template !== "classic")
      .map((template) => TEMPLATE_LABELS[template].name)
      .join(" and ")} as well as Classic`,
  },
  {
    id: "branding",
    title: "Your own branding",
    detail: "an accent colour and a header image on every newsletter",
  },
  {
    id: "analytics",
    title: "Delivery analytics",
    detail: "how many recipients opened each issue and clicked its links",
  },
  {
    id: "support",
    title: "Priority support",
    detail: PRIORITY_SUPPORT_PROMISE,
  },
] as const;

export type PremiumPerk = (typeof PREMIUM_PERKS)[number];

/** The perks in one sentence, for a banner: "Unlimited folders and storage, … and priority support." */
export function perksInOneLine() {
  const titles = PREMIUM_PERKS.map((perk, index) =>
    index === 0 ? perk.title : perk.title.toLowerCase(),
  );
  return `${titles.slice(0, -1).join(", ")} and ${titles.at(-1)}.`;
}
