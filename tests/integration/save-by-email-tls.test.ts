import fs from "node:fs";
import nodemailer from "nodemailer";
import { expect, test } from "vitest";
import { tempDir } from "../support/integration";
import { startSaveByEmailWorld } from "../support/save-by-email-world";
import { selfSignedCertificate } from "../support/self-signed-certificate";

/**
 * Issue 38: with INBOUND_SMTP_TLS_KEY and INBOUND_SMTP_TLS_CERT set, the SMTP
 * receiver offers STARTTLS, and mail sent over the upgraded connection is
 * saved (docs/decisions/0158-save-by-email.md). The certificate is a
 * self-signed one made here by openssl. Needs `npm run build` first.
 */
const DOMAIN = "in.thoughtfully.test";
const { keyFile, certFile } = selfSignedCertificate(DOMAIN, tempDir());

const world = await startSaveByEmailWorld({
  INBOUND_SMTP_TLS_KEY: keyFile,
  INBOUND_SMTP_TLS_CERT: certFile,
});

test("a sending server upgrades with STARTTLS, sends, and the items are saved", async () => {
  const transport = nodemailer.createTransport({
    host: "127.0.0.1",
    port: world.smtpPort,
    secure: false,
    // Refuses to send unless STARTTLS is offered and the upgrade succeeds.
    requireTLS: true,
    tls: { ca: [fs.readFileSync(certFile)], servername: DOMAIN },
    dkim: world.signedBy(world.dkimKeys.privateKey),
  });
  const info = await transport.sendMail(world.recipe(world.address));
  expect(info.response).toMatch(/^250/);
  expect(world.itemsOf(world.folder.id).map((item) => item.type)).toEqual(["link", "photo"]);
  expect(world.answersTo("ada@family.test")).toHaveLength(1);
});
