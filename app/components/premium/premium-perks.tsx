import { PREMIUM_PERKS } from "~/modules/plans/premium-perks";

type Sample = { template: string; name: string; html: string };

/**
 * A template's sample newsletter, scaled down: a picture of the look, not a
 * page to use. Sandboxed with nothing allowed, out of the tab order and hidden
 * from assistive technology; the template's name beside it says what it is.
 */
export function TemplateThumbnail({ sample }: { sample: Sample }) {
  return (
    <div
      aria-hidden="true"
      className="pointer-events-none relative h-[150px] w-[120px] shrink-0 overflow-hidden rounded-md border border-stone-200 bg-white"
    >
      <iframe
        sandbox=""
        srcDoc={sample.html}
        title={`${sample.name} template sample`}
        tabIndex={-1}
        scrolling="no"
        className="absolute left-0 top-0 h-[750px] w-[600px] origin-top-left scale-[0.2] border-0"
      />
    </div>
  );
}

/** The templates side by side, each named under its thumbnail. */
export function TemplateThumbnails({ samples }: { samples: Sample[] }) {
  return (
    <ul aria-label="Templates" className="mt-2 flex flex-wrap gap-3">
      {samples.map((sample) => (
        <li key={sample.template} className="flex flex-col items-center gap-1">
          <TemplateThumbnail sample={sample} />
          <span className="text-xs text-stone-700">{sample.name}</span>
        </li>
      ))}
    </ul>
  );
}

/** Every Premium perk (app/modules/plans/premium-perks.ts), with the templates shown when given. */
export function PremiumPerkList({ samples }: { samples?: Sample[] }) {
  return (
    <ul aria-label="Premium perks" className="space-y-2 text-sm text-stone-700">
      {PREMIUM_PERKS.map((perk) => (
        <li key={perk.id}>
          <span className="font-medium text-stone-900">{perk.title}</span>: {perk.detail}
          {perk.id === "templates" && samples ? <TemplateThumbnails samples={samples} /> : null}
        </li>
      ))}
    </ul>
  );
}
