import { DomUtils, parseDocument } from "htmlparser2";
import { renderToString } from "react-dom/server";
import { describe, expect, test } from "vitest";
import { SettingsSection } from "./settings-section";

function parseSection(element: React.ReactElement) {
  const document = parseDocument(renderToString(element));
  return (tag: string) => DomUtils.getElementsByTagName(tag, document.children);
}

describe("SettingsSection", () => {
  test("an anchor for in-page links, named by its heading, the description before the body", () => {
    const all = parseSection(
      <SettingsSection id="passkeys" title="Passkeys" description="Sign in with a screen lock.">
        <p>No passkeys yet.</p>
      </SettingsSection>,
    );
    const section = all("section")[0]!;
    expect(section.attribs).toMatchObject({
      id: "passkeys",
      "aria-labelledby": "passkeys-heading",
    });
    expect(section.attribs.class).toContain("border-stone-200");
    const heading = all("h2")[0]!;
    expect(heading.attribs.id).toBe("passkeys-heading");
    expect(DomUtils.textContent(heading)).toBe("Passkeys");
    expect(all("p").map((p) => DomUtils.textContent(p))).toEqual([
      "Sign in with a screen lock.",
      "No passkeys yet.",
    ]);
  });

  test("without a description only the body follows the heading; danger has a red border", () => {
    const all = parseSection(
      <SettingsSection id="actions" title="Account Actions" tone="danger">
        <a href="/profile/delete">Delete Account</a>
      </SettingsSection>,
    );
    expect(all("p")).toHaveLength(0);
    expect(all("section")[0]!.attribs.class).toContain("border-red-200");
  });
});
