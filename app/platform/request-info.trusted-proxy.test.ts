import { expect, test } from "vitest";
import { runInRequestContext } from "./request-context.server";

// Set before any module of ours reads the environment.
process.env.TRUSTED_PROXY = "10.0.0.2";

test("believes X-Forwarded-For only from the trusted proxy, and only its last entry", async () => {
  const { clientIp } = await import("./request-info.server");
  const request = new Request("http://localhost:3000/login", {
    headers: { "X-Forwarded-For": "127.0.0.1, 198.51.100.7" },
  });
  expect(runInRequestContext({ peerAddress: "10.0.0.2" }, () => clientIp(request))).toBe(
    "198.51.100.7",
  );
  expect(runInRequestContext({ peerAddress: "10.0.0.3" }, () => clientIp(request))).toBe(
    "10.0.0.3",
  );
});
