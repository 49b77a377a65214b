import { expect, test } from "vitest";
import { relayOfSmtpUrl } from "./smtp-relay";

test.each([
  ["smtps://token:token@smtp.postmarkapp.com:465", "postmark"],
  ["smtp://token:token@smtp-broadcasts.postmarkapp.com:587", "postmark"],
  ["smtp://postmaster@mg.example.com:secret@smtp.mailgun.org:587", "mailgun"],
  ["smtps://postmaster%40mg.example.com:secret@smtp.eu.mailgun.org:465", "mailgun"],
  ["smtp://apikey:SG.secret@smtp.sendgrid.net:587", "sendgrid"],
  ["smtp://apikey:secret@SMTP.SendGrid.NET.:587", "sendgrid"],
])("recognises the relay of %s", (url, relay) => {
  expect(relayOfSmtpUrl(url)).toBe(relay);
});

test.each([
  ["an unknown host", "smtps://user:pass@email-smtp.eu-west-1.amazonaws.com:465"],
  ["a host that only starts with a relay's domain", "smtp://u:p@smtp.postmarkapp.com.example.net"],
  ["a host that only ends with its letters", "smtp://u:p@notsendgrid.net"],
  ["a relay's domain in the user name only", "smtp://smtp.mailgun.org:p@mail.example.com"],
  ["the tests' sink", "smtp://127.0.0.1:2525"],
  ["no URL", undefined],
  ["a URL that does not parse", "smtp://"],
])("knows no relay for %s", (_case, url) => {
  expect(relayOfSmtpUrl(url)).toBe("none");
});
