import fc from "fast-check";
import { DomUtils, parseDocument } from "htmlparser2";
import { renderToStaticMarkup } from "react-dom/server";
import { expect, test } from "vitest";
import { hostileText } from "#tests/support/hostile-text";
import { CredentialChange } from "./credential-change";

/** The element names of a rendered notice, in document order. */
function tagsOf(markup: string) {
  return DomUtils.findAll(() => true, parseDocument(markup).children).map((node) => node.name);
}

const notice = (summary: string, where: string) =>
  renderToStaticMarkup(
    <CredentialChange
      firstName="Ada"
      subject="A passkey was added to your account"
      summary={summary}
      when="November 26, 2026 at 11:00 AM (Europe/Paris)"
      where={where}
      undoUrl="http://localhost:3000/account/undo?token=abc.def"
      undoLabel="Undo it and secure my account"
    />,
  );

test("a passkey's name and the client's user agent stay text: no element is added", () => {
  const plain = tagsOf(notice("A passkey was added.", "127.0.0.1"));
  fc.assert(
    fc.property(hostileText, hostileText, (name, userAgent) => {
      const markup = notice(`A passkey “${name}” was added.`, `127.0.0.1, ${userAgent}`);
      expect(tagsOf(markup)).toEqual(plain);
      expect(DomUtils.textContent(parseDocument(markup))).toContain(userAgent);
    }),
    { numRuns: 200 },
  );
});
