import { expect, test } from "vitest";
import { runInRequestContext } from "./request-context.server";

// Set before any module of ours reads the environment: as Fly sets it on its machines.
process.env.FLY_APP_NAME = "thoughtfully";

test("on Fly, the client is the Fly-Client-IP that Fly's proxy (the peer) sets", async () => {
  const { clientIp } = await import("./request-info.server");
  const request = new Request("http://localhost:3000/login", {
    headers: { "Fly-Client-IP": "198.51.100.7" },
  });
  expect(runInRequestContext({ peerAddress: "172.16.0.2" }, () => clientIp(request))).toBe(
    "198.51.100.7",
  );
});
