import path from "node:path";
import { describe, expect, test } from "vitest";
import { ConfigError, parseEnv } from "./env.server";

const base = { SESSION_SECRET: "x".repeat(32), DATABASE_PATH: "/tmp/unused/app.db" };

describe("parseEnv", () => {
  test("uses the documented defaults", () => {
    const env = parseEnv({ SESSION_SECRET: base.SESSION_SECRET });
    expect(env.PORT).toBe(3000);
    expect(env.APP_URL).toBe("http://localhost:3000");
    expect(env.DATABASE_PATH).toBe("./data/app.db");
    expect(env.STORAGE_DIR).toBe("./data/uploads");
    expect(env.OUTBOX_DIR).toBe("./data/outbox");
    expect(env.DISK_RESERVE_MB).toBe(256);
    expect(env.BACKUP_DIR).toBe(path.resolve("./data/backups"));
    expect(env.LITEFS_DIR).toBeUndefined();
    expect(env.SMTP_URL).toBeUndefined();
    expect(env.SMTP_RELAY).toBe("none");
    expect(env.SMTP_MAX_CONNECTIONS).toBe(8);
    expect(env.SMTP_MAX_MESSAGES_PER_SECOND).toBeUndefined();
    expect(env.SCHEDULER).toBe("on");
    expect(env.isHttps).toBe(false);
    expect(env.TRUSTED_PROXY).toEqual([]);
    expect(env.FLY_APP_NAME).toBeUndefined();
  });

  test("reads TRUSTED_PROXY as a list of addresses", () => {
    expect(parseEnv({ ...base, TRUSTED_PROXY: " 10.0.0.2, ::1 ," }).TRUSTED_PROXY).toEqual([
      "10.0.0.2",
      "::1",
    ]);
  });

  test("names the variable and the value in one line when PORT is not a number", () => {
    expect(() => parseEnv({ ...base, PORT: "abc" })).toThrowError(ConfigError);
    try {
      parseEnv({ ...base, PORT: "abc" });
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toMatch(/^Invalid configuration: PORT .*"abc"/);
      expect(message).not.toContain("\n");
    }
  });

  test.each([
    ["PORT", "70000"],
    ["SCHEDULER", "maybe"],
    ["APP_URL", "not a url"],
    ["SMTP_URL", "http://mail.example"],
    ["SESSION_SECRET", "short"],
    ["BOUNCE_ADDRESS", "Bounces <bounces@example.com>"],
    ["SMTP_RELAY", "mandrill"],
    ["DISK_RESERVE_MB", "-1"],
    ["DISK_RESERVE_MB", "1.5"],
    ["DISK_RESERVE_MB", "lots"],
    ["SMTP_MAX_CONNECTIONS", "0"],
    ["SMTP_MAX_CONNECTIONS", "2.5"],
    ["SMTP_MAX_CONNECTIONS", "65"],
    ["SMTP_MAX_MESSAGES_PER_SECOND", "0"],
    ["SMTP_MAX_MESSAGES_PER_SECOND", "fast"],
  ])("rejects %s=%s", (name, value) => {
    expect(() => parseEnv({ ...base, [name]: value })).toThrowError(new RegExp(`${name} `));
  });

  test("the relay whose header copies carry: recognised from SMTP_URL's host", () => {
    const relayOf = (SMTP_URL: string) => parseEnv({ ...base, SMTP_URL }).SMTP_RELAY;
    expect(relayOf("smtps://t:t@smtp.postmarkapp.com:465")).toBe("postmark");
    expect(relayOf("smtp://postmaster%40mg.example.com:p@smtp.mailgun.org:587")).toBe("mailgun");
    expect(relayOf("smtp://apikey:SG.x@smtp.sendgrid.net:587")).toBe("sendgrid");
    expect(relayOf("smtps://u:p@email-smtp.eu-west-1.amazonaws.com:465")).toBe("none");
  });

  test("the relay set explicitly wins over SMTP_URL's host", () => {
    const postmarkUrl = "smtps://t:t@smtp.postmarkapp.com:465";
    expect(parseEnv({ ...base, SMTP_URL: postmarkUrl, SMTP_RELAY: "none" }).SMTP_RELAY).toBe(
      "none",
    );
    expect(
      parseEnv({ ...base, SMTP_URL: "smtp://relay.internal.example:25", SMTP_RELAY: "mailgun" })
        .SMTP_RELAY,
    ).toBe("mailgun");
    expect(parseEnv({ ...base, SMTP_RELAY: "sendgrid" }).SMTP_RELAY).toBe("sendgrid");
  });

  test("the relay's connections and messages a second", () => {
    const env = parseEnv({
      ...base,
      SMTP_MAX_CONNECTIONS: "16",
      SMTP_MAX_MESSAGES_PER_SECOND: " 14 ",
    });
    expect(env.SMTP_MAX_CONNECTIONS).toBe(16);
    expect(env.SMTP_MAX_MESSAGES_PER_SECOND).toBe(14);
    expect(parseEnv({ ...base, SMTP_MAX_MESSAGES_PER_SECOND: "0.5" })).toMatchObject({
      SMTP_MAX_MESSAGES_PER_SECOND: 0.5,
    });
    expect(parseEnv({ ...base, SMTP_MAX_MESSAGES_PER_SECOND: "" })).toMatchObject({
      SMTP_MAX_MESSAGES_PER_SECOND: undefined,
    });
  });

  test("a bounce address is optional and bare", () => {
    expect(parseEnv(base).BOUNCE_ADDRESS).toBeUndefined();
    expect(
      parseEnv({ ...base, BOUNCE_ADDRESS: " bounces@bounce.example.com " }).BOUNCE_ADDRESS,
    ).toBe("bounces@bounce.example.com");
  });

  test("requires SESSION_SECRET for an https deployment", () => {
    expect(() => parseEnv({ APP_URL: "https://thoughtfully.example" })).toThrowError(
      /SESSION_SECRET is required/,
    );
    const env = parseEnv({ ...base, APP_URL: "https://thoughtfully.example/" });
    expect(env.isHttps).toBe(true);
    expect(env.APP_URL).toBe("https://thoughtfully.example");
  });

  test("derives APP_URL from PORT and accepts an SMTP URL", () => {
    const env = parseEnv({ ...base, PORT: "4000", SMTP_URL: "smtp://u:p@127.0.0.1:2525" });
    expect(env.APP_URL).toBe("http://localhost:4000");
    expect(env.SMTP_URL).toBe("smtp://u:p@127.0.0.1:2525");
  });

  test("reads a crash-test fault point only under NODE_ENV=test", () => {
    const test = { ...base, NODE_ENV: "test" };
    expect(parseEnv(test).THOUGHTFULLY_FAULT_POINT).toBeUndefined();
    expect(
      parseEnv({ ...test, THOUGHTFULLY_FAULT_POINT: "smtp-accepted" }).THOUGHTFULLY_FAULT_POINT,
    ).toEqual({ point: "smtp-accepted", hit: 1 });
    expect(
      parseEnv({ ...test, THOUGHTFULLY_FAULT_POINT: "recipient-recorded#3" })
        .THOUGHTFULLY_FAULT_POINT,
    ).toEqual({ point: "recipient-recorded", hit: 3 });
    expect(() => parseEnv({ ...test, THOUGHTFULLY_FAULT_POINT: "nowhere" })).toThrowError(
      /THOUGHTFULLY_FAULT_POINT must be one of/,
    );
    expect(() =>
      parseEnv({ ...base, NODE_ENV: "production", THOUGHTFULLY_FAULT_POINT: "claimed" }),
    ).toThrowError(/for tests only/);
  });
});

describe("parseEnv: link previews", () => {
  test("loopback fetches are off by default", () => {
    expect(parseEnv(base).LINK_PREVIEW_ALLOW_LOOPBACK).toBe(false);
  });

  test.each([
    ["test", undefined],
    ["test", "http://127.0.0.1:4123"],
    ["development", "http://localhost:3000"],
    [undefined, undefined],
  ])("the switch is accepted with NODE_ENV=%s and APP_URL=%s", (nodeEnv, appUrl) => {
    const source = {
      ...base,
      NODE_ENV: nodeEnv,
      APP_URL: appUrl,
      LINK_PREVIEW_ALLOW_LOOPBACK: "true",
    };
    expect(parseEnv(source).LINK_PREVIEW_ALLOW_LOOPBACK).toBe(true);
  });

  test.each([
    // The Docker image's defaults: NODE_ENV=production, no APP_URL.
    ["production", undefined],
    ["production", "http://localhost:4123"],
    ["production", "http://127.0.0.1:8080"],
    ["production", "https://thoughtfully.example"],
    ["production", "http://thoughtfully.example"],
    ["test", "https://thoughtfully.example"],
    ["development", "https://localhost:3000"],
  ])("the switch is refused with NODE_ENV=%s and APP_URL=%s", (nodeEnv, appUrl) => {
    const source = {
      ...base,
      NODE_ENV: nodeEnv,
      APP_URL: appUrl,
      LINK_PREVIEW_ALLOW_LOOPBACK: "true",
    };
    expect(() => parseEnv(source)).toThrowError(
      new ConfigError(
        "Invalid configuration: LINK_PREVIEW_ALLOW_LOOPBACK is for tests only (refused with NODE_ENV=production or an https APP_URL)",
      ),
    );
  });
});

describe("parseEnv: S3 storage", () => {
  test("no S3_BUCKET means the local disk; the rest has defaults", () => {
    const env = parseEnv(base);
    expect(env.S3_BUCKET).toBeUndefined();
    expect(env.S3_REGION).toBe("us-east-1");
    expect(env.S3_FORCE_PATH_STYLE).toBe(false);
  });

  test("reads a bucket, its endpoint, region, keys and path style", () => {
    const env = parseEnv({
      ...base,
      S3_BUCKET: "thoughtfully-uploads",
      S3_ENDPOINT: "https://fly.storage.tigris.dev",
      S3_REGION: "auto",
      S3_ACCESS_KEY_ID: "key",
      S3_SECRET_ACCESS_KEY: "secret",
      S3_FORCE_PATH_STYLE: "true",
    });
    expect(env).toMatchObject({
      S3_BUCKET: "thoughtfully-uploads",
      S3_ENDPOINT: "https://fly.storage.tigris.dev",
      S3_REGION: "auto",
      S3_ACCESS_KEY_ID: "key",
      S3_SECRET_ACCESS_KEY: "secret",
      S3_FORCE_PATH_STYLE: true,
    });
  });

  test("one key without the other is refused, naming both", () => {
    expect(() => parseEnv({ ...base, S3_BUCKET: "b", S3_ACCESS_KEY_ID: "key" })).toThrowError(
      /S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY/,
    );
  });

  test("a bad endpoint or path style names the variable", () => {
    expect(() => parseEnv({ ...base, S3_ENDPOINT: "tigris" })).toThrowError(/S3_ENDPOINT/);
    expect(() => parseEnv({ ...base, S3_FORCE_PATH_STYLE: "yes" })).toThrowError(
      /S3_FORCE_PATH_STYLE/,
    );
  });
});
