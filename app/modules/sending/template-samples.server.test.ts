import { describe, expect, test } from "vitest";
import { brandingCss } from "#emails/newsletter-themes";
import { templateSamples } from "./template-samples.server";

describe("template thumbnails", () => {
  test("are the real newsletter in each template, with the sample items", () => {
    const samples = templateSamples();
    expect(samples.map((sample) => sample.name)).toEqual(["Classic", "Letter", "Postcard"]);
    for (const sample of samples) {
      expect(sample.html).toContain("Sunday pancakes");
      expect(sample.html).toContain("Shall we go in May?");
      expect(sample.html).not.toMatch(/%%[A-Z_]+%%/);
    }
    // Each template's own rules are in its sample (inlined by the renderer).
    expect(samples[1]!.html).toContain("#f7f1e6");
    expect(samples[0]!.html).not.toContain("#f7f1e6");
    expect(brandingCss({ template: "letter", accentColor: null, headerImage: null })).toContain(
      "#f7f1e6",
    );
  });

  test("take the sender's accent colour", () => {
    const [, , postcard] = templateSamples("#1e3a8a");
    expect(postcard!.html).toContain("#1e3a8a");
    expect(templateSamples()[2]!.html).not.toContain("#1e3a8a");
  });
});
