import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "vitest";
import { selfSignedCertificate } from "#tests/support/self-signed-certificate";
import {
  isSnsUrl,
  type SnsMessage,
  sesReports,
  snsStringToSign,
  verifySnsSignature,
} from "./ses-webhook.server";

/** A self-signed certificate made here with openssl, standing in for SNS's signing certificate. */
const signer = (() => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sns-cert-"));
  const { key, cert } = selfSignedCertificate("sns.amazonaws.com", dir);
  fs.rmSync(dir, { recursive: true, force: true });
  return { key, cert };
})();

function signed(values: Omit<SnsMessage, "Signature">, key = signer.key): SnsMessage {
  const unsigned = { ...values, Signature: "" };
  const algorithm = values.SignatureVersion === "1" ? "sha1" : "sha256";
  const signature = crypto.sign(algorithm, Buffer.from(snsStringToSign(unsigned)), key);
  return { ...unsigned, Signature: signature.toString("base64") };
}

const notification = {
  Type: "Notification" as const,
  MessageId: "22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324",
  TopicArn: "arn:aws:sns:us-east-1:123456789012:ses-feedback",
  Message: JSON.stringify({ notificationType: "Bounce" }),
  Timestamp: "2026-11-26T09:00:00.000Z",
  SignatureVersion: "2" as const,
  SigningCertURL: "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-abc.pem",
};

test("a message signed with the certificate's key verifies, in both signature versions; a changed one does not", () => {
  expect(verifySnsSignature(signed(notification), signer.cert)).toBe(true);
  expect(verifySnsSignature(signed({ ...notification, SignatureVersion: "1" }), signer.cert)).toBe(
    true,
  );
  const tampered = { ...signed(notification), Message: JSON.stringify({ other: true }) };
  expect(verifySnsSignature(tampered, signer.cert)).toBe(false);
  const stranger = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
  const forged = signed(
    notification,
    stranger.privateKey.export({ type: "pkcs8", format: "pem" }) as string,
  );
  expect(verifySnsSignature(forged, signer.cert)).toBe(false);
});

test("certificates and confirmations are fetched only from SNS over https", () => {
  expect(isSnsUrl(notification.SigningCertURL)).toBe(true);
  expect(isSnsUrl("http://sns.us-east-1.amazonaws.com/x.pem")).toBe(false);
  expect(isSnsUrl("https://sns.us-east-1.amazonaws.com.evil.test/x.pem")).toBe(false);
  expect(isSnsUrl("https://evil.test/sns.us-east-1.amazonaws.com/x.pem")).toBe(false);
  expect(isSnsUrl("https://sns.us-east-1.amazonaws.com:8443/x.pem")).toBe(false);
  expect(isSnsUrl("https://s3.amazonaws.com/x.pem")).toBe(false);
});

test("SES bounces and complaints, with the copy from the original headers", () => {
  const headers = [{ name: "X-Thoughtfully-Copy", value: "c3-000000000000000000000000" }];
  const bounce = (bounceType: string) =>
    sesReports(
      JSON.stringify({
        notificationType: "Bounce",
        bounce: {
          bounceType,
          feedbackId: `fb-${bounceType}`,
          timestamp: "2026-11-26T09:00:00.000Z",
          bouncedRecipients: [
            { emailAddress: "a@example.test", diagnosticCode: "smtp; 550 5.1.1" },
          ],
        },
        mail: { headers },
      }),
    );
  expect(bounce("Permanent")).toEqual([
    {
      sourceEventId: "fb-Permanent",
      token: "c3-000000000000000000000000",
      kind: "hard_bounce",
      detail: "smtp; 550 5.1.1",
      occurredAt: new Date("2026-11-26T09:00:00.000Z"),
    },
  ]);
  expect(bounce("Transient")[0]?.kind).toBe("soft_bounce");
  expect(bounce("Undetermined")).toEqual([]);
  const complaint = (complaintFeedbackType?: string) =>
    sesReports(
      JSON.stringify({
        eventType: "Complaint",
        complaint: { feedbackId: "fb-c", complaintFeedbackType },
        mail: {},
      }),
    );
  expect(complaint("abuse")).toMatchObject([{ kind: "complaint", token: null }]);
  expect(complaint()).toMatchObject([{ kind: "complaint" }]);
  expect(complaint("not-spam")).toEqual([]);
  expect(sesReports("not json")).toEqual([]);
});
