import crypto from "node:crypto";
import { expect, test } from "vitest";
import {
  RELAY_WEBHOOK_REQUESTS,
  RELAYS,
  refuseOverRateLimit,
  sendgridSignatureValid,
} from "./relay-webhooks.server";

const meta = { thoughtfully_copy: "c1-000000000000000000000000" };

test("Postmark: hard and soft bounces and spam complaints; other bounce types are no report", () => {
  const event = (RecordType: string, Type?: string) =>
    RELAYS.postmark.reports({
      RecordType,
      Type,
      ID: 9,
      Metadata: meta,
      BouncedAt: "2026-11-26T09:00:00Z",
    });
  expect(event("Bounce", "HardBounce")).toEqual([
    {
      sourceEventId: "Bounce-9",
      token: meta.thoughtfully_copy,
      kind: "hard_bounce",
      detail: null,
      occurredAt: new Date("2026-11-26T09:00:00Z"),
    },
  ]);
  expect(event("Bounce", "SoftBounce")[0]?.kind).toBe("soft_bounce");
  expect(event("SpamComplaint", "SpamComplaint")[0]?.kind).toBe("complaint");
  expect(event("Bounce", "AutoResponder")).toEqual([]);
  expect(event("Delivery")).toEqual([]);
});

test("Mailgun: permanent and temporary failures and complaints, with the copy from the variables", () => {
  const body = (eventData: object) => ({
    signature: { timestamp: "1", token: "t", signature: "s" },
    "event-data": { id: "e1", timestamp: 1_764_000_000, ...eventData },
  });
  const [permanent] = RELAYS.mailgun.reports(
    body({ event: "failed", severity: "permanent", "user-variables": meta }),
  );
  expect(permanent).toMatchObject({ kind: "hard_bounce", token: meta.thoughtfully_copy });
  expect(RELAYS.mailgun.reports(body({ event: "failed", severity: "temporary" }))[0]).toMatchObject(
    { kind: "soft_bounce", token: null },
  );
  expect(RELAYS.mailgun.reports(body({ event: "complained" }))[0]?.kind).toBe("complaint");
  expect(RELAYS.mailgun.reports(body({ event: "delivered" }))).toEqual([]);
});

test("SendGrid: bounces, blocks and spam reports in a batch; the rest is left out", () => {
  const reports = RELAYS.sendgrid.reports([
    { event: "bounce", type: "bounce", sg_event_id: "a", ...meta },
    { event: "bounce", type: "blocked", sg_event_id: "b" },
    { event: "spamreport", sg_event_id: "c" },
    { event: "open", sg_event_id: "d" },
    "not an event",
  ]);
  expect(reports.map((report) => [report.sourceEventId, report.kind, report.token])).toEqual([
    ["a", "hard_bounce", meta.thoughtfully_copy],
    ["b", "soft_bounce", null],
    ["c", "complaint", null],
  ]);
});

test("SendGrid's signature holds over the body's bytes as sent, Latin-1 ones too, and nothing else", () => {
  const { publicKey, privateKey } = crypto.generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const key = publicKey.export({ type: "spki", format: "der" }).toString("base64");
  const body = Buffer.from("email=Caf\xe9", "latin1");
  const signed = (timestamp: string, signature: Buffer) =>
    new Request("http://localhost/webhooks/save-by-email", {
      method: "POST",
      headers: {
        "X-Twilio-Email-Event-Webhook-Timestamp": timestamp,
        "X-Twilio-Email-Event-Webhook-Signature": signature.toString("base64"),
      },
    });
  const signature = crypto.sign(
    "sha256",
    Buffer.concat([Buffer.from("1700000000"), body]),
    privateKey,
  );
  expect(sendgridSignatureValid(key, signed("1700000000", signature), body)).toBe(true);
  expect(sendgridSignatureValid(key, signed("1700000001", signature), body)).toBe(false);
  expect(
    sendgridSignatureValid(key, signed("1700000000", signature), Buffer.from("email=Cafe")),
  ).toBe(false);
  expect(sendgridSignatureValid(key, new Request("http://localhost/"), body)).toBe(false);
  expect(sendgridSignatureValid("not a key", signed("1700000000", signature), body)).toBe(false);
});

test("past the rate limit, a client is asked to come back later", async () => {
  const request = new Request("http://localhost/webhooks/postmark", { method: "POST" });
  for (let taken = 0; taken < RELAY_WEBHOOK_REQUESTS.points; taken += 1) {
    expect(await refuseOverRateLimit(request)).toBeNull();
  }
  const refused = await refuseOverRateLimit(request);
  expect(refused?.status).toBe(429);
  expect(Number(refused?.headers.get("Retry-After"))).toBeGreaterThan(0);
});
