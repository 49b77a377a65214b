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
    expect(env.SMTP_URL).toBeUndefined();
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
  ])("rejects %s=%s", (name, value) => {
    expect(() => parseEnv({ ...base, [name]: value })).toThrowError(new RegExp(`${name} `));
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
});
