import { expect, test } from "vitest";
import { copyToken } from "./copy-token.server";
import { readReportMessage } from "./report-messages.server";

function report(reportType: string, statusPart: string, returned: string, to = "bounces@x.test") {
  const boundary = "b0undary";
  const partType =
    reportType === "delivery-status" ? "message/delivery-status" : "message/feedback-report";
  return [
    "From: MAILER-DAEMON@mx.example.test",
    `To: <${to}>`,
    "Message-ID: <report-1@mx.example.test>",
    "MIME-Version: 1.0",
    `Content-Type: multipart/report; report-type=${reportType}; boundary="${boundary}"`,
    "",
    `--${boundary}`,
    "Content-Type: text/plain",
    "",
    "Human-readable part.",
    `--${boundary}`,
    `Content-Type: ${partType}`,
    "",
    statusPart,
    "",
    `--${boundary}`,
    "Content-Type: text/rfc822-headers",
    "",
    returned,
    "",
    `--${boundary}--`,
    "",
  ].join("\r\n");
}

const perRecipient = (action: string, status: string) =>
  `Reporting-MTA: dns; mx.example.test\r\n\r\nFinal-Recipient: rfc822; a@example.test\r\nAction: ${action}\r\nStatus: ${status}\r\nDiagnostic-Code: smtp; ${status} said no`;

test("a failed delivery is a hard bounce with 5.x.x and a soft one with 4.x.x; a delay is no bounce", async () => {
  const returned = `X-Thoughtfully-Copy: ${copyToken(3)}`;
  expect(
    await readReportMessage(report("delivery-status", perRecipient("failed", "5.1.1"), returned)),
  ).toMatchObject({
    source: "dsn",
    kind: "hard_bounce",
    ledgerRecipientId: 3,
    sourceEventId: "<report-1@mx.example.test>",
    detail: "smtp; 5.1.1 said no",
  });
  expect(
    await readReportMessage(report("delivery-status", perRecipient("failed", "4.2.2"), returned)),
  ).toMatchObject({ kind: "soft_bounce" });
  expect(
    await readReportMessage(report("delivery-status", perRecipient("delayed", "4.4.7"), returned)),
  ).toBeNull();
});

test("abuse reports are complaints; not-spam and other reports are not", async () => {
  const feedback = (type: string) =>
    `Feedback-Type: ${type}\r\nVersion: 1\r\nOriginal-Mail-From: <bounces+${copyToken(4)}@x.test>`;
  expect(await readReportMessage(report("feedback-report", feedback("abuse"), ""))).toMatchObject({
    source: "arf",
    kind: "complaint",
    ledgerRecipientId: 4,
  });
  expect(await readReportMessage(report("feedback-report", feedback("not-spam"), ""))).toBeNull();
  expect(await readReportMessage("Subject: hello\r\n\r\nJust mail.")).toBeNull();
});

test("the copy comes only from genuine tokens, and only when they agree", async () => {
  const status = perRecipient("failed", "5.1.1");
  const forged = copyToken(5).replace(/^c5-/, "c6-");
  expect(
    await readReportMessage(report("delivery-status", status, `X-Thoughtfully-Copy: ${forged}`)),
  ).toMatchObject({ ledgerRecipientId: null });
  expect(
    await readReportMessage(
      report(
        "delivery-status",
        status,
        `X-Thoughtfully-Copy: ${copyToken(7)}`,
        `bounces+${copyToken(8)}@x.test`,
      ),
    ),
  ).toMatchObject({ ledgerRecipientId: null });
  expect(
    await readReportMessage(
      report(
        "delivery-status",
        status,
        `X-Thoughtfully-Copy: ${copyToken(7)}`,
        `bounces+${copyToken(7)}@x.test`,
      ),
    ),
  ).toMatchObject({ ledgerRecipientId: 7 });
});
