import { DomUtils, parseDocument } from "htmlparser2";
import { renderToString } from "react-dom/server";
import { describe, expect, test } from "vitest";
import type { RelayStatus } from "~/modules/sending/relay-hold.server";
import { RelayHoldNotice, RelayStatusDetail } from "./relay-status";

const text = (element: React.ReactElement) =>
  DomUtils.textContent(parseDocument(renderToString(element)).children).replace(/\s+/g, " ");

const calm: RelayStatus = { hold: null, lastHold: null, refusedSends: [] };

const held: RelayStatus = {
  hold: {
    since: new Date("2026-12-02T10:00:00Z"),
    stage: "AUTH",
    answer: "535 5.7.8 Authentication credentials invalid",
    refusals: 3,
    lastAt: new Date("2026-12-02T10:03:00Z"),
    nextTryAt: new Date("2026-12-02T10:08:00Z"),
  },
  lastHold: null,
  refusedSends: [
    {
      ledgerId: 12,
      folderId: 7,
      folderName: "Family",
      stage: "end of DATA",
      answer: "552 5.3.4 Message too big",
      refusals: 2,
      lastAt: new Date("2026-12-01T09:00:00Z"),
      outcome: "failed",
    },
  ],
};

describe("the relay on the admin pages", () => {
  test("a hold is told at the top of the dashboard, in the relay's words, with the next try", () => {
    const told = text(<RelayHoldNotice relay={held} />);
    expect(told).toContain("Sending is held: the mail relay refuses us");
    expect(told).toContain("At AUTH it answered: 535 5.7.8 Authentication credentials invalid");
    expect(told).toContain("3 tries refused");
    expect(told).toContain("Next try at Wed 2 Dec 2026, 10:08 UTC");
    expect(told).toContain("Nobody is marked bounced");
  });

  test("nothing at the top while the relay takes mail", () => {
    expect(renderToString(<RelayHoldNotice relay={calm} />)).toBe("");
  });

  test("the postmaster panel says whether the relay takes mail and lists the sends it refused", () => {
    const detail = text(<RelayStatusDetail relay={held} />);
    expect(detail).toContain("Mail relay");
    expect(detail).toContain("Refusing us");
    expect(detail).toContain("Family (send 12)");
    expect(detail).toContain("At end of DATA: 552 5.3.4 Message too big");
    expect(detail).toContain("Failed: its items wait for the next send");
    const after = text(
      <RelayStatusDetail
        relay={{
          ...calm,
          lastHold: {
            since: new Date("2026-12-02T10:00:00Z"),
            endedAt: new Date("2026-12-02T10:30:00Z"),
            stage: "MAIL FROM",
            answer: "553 Suspended",
            refusals: 4,
          },
        }}
      />,
    );
    expect(after).toContain("Taking mail");
    expect(after).toContain(
      "Last held from Wed 2 Dec 2026, 10:00 UTC to Wed 2 Dec 2026, 10:30 UTC",
    );
  });
});
