/**
 * Premium newsletter looks: three templates and the sender's branding (an
 * accent colour and a header image). Each template is a few CSS rules added
 * after the base styles of emails/newsletter.tsx, inlined by juice like them,
 * so the markup (and with it the Gmail clipping budget) is the same for all
 * three. Limits: docs/decisions/0065-newsletter-templates-and-branding.md.
 */
export const NEWSLETTER_TEMPLATES = ["classic", "letter", "postcard"] as const;
export type NewsletterTemplate = (typeof NEWSLETTER_TEMPLATES)[number];

export const TEMPLATE_LABELS: Record<NewsletterTemplate, { name: string; description: string }> = {
  classic: { name: "Classic", description: "A white card on a warm background." },
  letter: { name: "Letter", description: "Serif type on paper, like a handwritten letter." },
  postcard: { name: "Postcard", description: "A bold band in your accent colour at the top." },
};

/** The Content-ID of the sender's header image, attached once per message and shown by `cid:`. */
export const HEADER_IMAGE_CID = "brand-header@thoughtfully";

export type NewsletterBranding = {
  template: NewsletterTemplate;
  /** `#rrggbb`, dark enough for white text (checked where it is saved). */
  accentColor: string | null;
  headerImage: { width: number; height: number } | null;
};

export const DEFAULT_ACCENT = "#30503b";

const HEX_COLOUR = /^#[0-9a-f]{6}$/i;

/** The colour only if it is `#rrggbb`: it is written into CSS, where anything else could break out. */
export function accentColourOf(branding: NewsletterBranding | undefined) {
  const colour = branding?.accentColor;
  return colour && HEX_COLOUR.test(colour) ? colour : null;
}

/** The template's and the accent colour's rules; empty for the classic look without an accent. */
export function brandingCss(branding: NewsletterBranding | undefined): string {
  if (!branding) return "";
  const chosen = accentColourOf(branding);
  const accent = chosen ?? DEFAULT_ACCENT;
  const accentRules = chosen
    ? `h1 { color: ${accent}; }\n.c { border-top: 4px solid ${accent}; }\n`
    : "";
  switch (branding.template) {
    case "letter":
      return `${accentRules}.p, body { background-color: #f7f1e6; }
.c { font-family: Georgia, Cambria, 'Times New Roman', serif; font-size: 17px; background-color: #fffdf8; border-radius: 2px; border-color: #e9dfcc; }
h1 { font-style: italic; }
`;
    case "postcard":
      return `.h { background-color: ${accent}; color: #ffffff; border-radius: 12px 12px 0 0; }
.by { color: #ffffff; }
h1 { color: #ffffff; }
.c { border-top: 0; border-radius: 0 0 12px 12px; }
`;
    default:
      return accentRules;
  }
}

/** Links in the card take the accent; kept in <head> like the base link colour. */
export function brandingMediaCss(branding: NewsletterBranding | undefined): string {
  const accent = accentColourOf(branding);
  return accent ? `@media screen { .c a { color: ${accent}; } }\n` : "";
}
