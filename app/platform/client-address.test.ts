import { describe, expect, test } from "vitest";
import { clientAddressFrom, clientShareKey } from "./client-address";

const headers = (values: Record<string, string>) => new Headers(values);
const direct = { flyAppName: undefined, trustedProxies: [] };

describe("clientAddressFrom", () => {
  test("is the peer; headers a client can write are ignored", () => {
    const forged = headers({ "X-Forwarded-For": "10.0.0.9", "Fly-Client-IP": "10.0.0.9" });
    expect(clientAddressFrom("203.0.113.5", forged, direct)).toBe("203.0.113.5");
  });

  test("on Fly, the proxy's Fly-Client-IP; behind a trusted proxy, the address it appended", () => {
    const sent = headers({
      "X-Forwarded-For": "1.1.1.1, 198.51.100.7",
      "Fly-Client-IP": "192.0.2.4",
    });
    expect(clientAddressFrom("172.16.0.1", sent, { flyAppName: "app", trustedProxies: [] })).toBe(
      "192.0.2.4",
    );
    expect(
      clientAddressFrom("::ffff:10.0.0.2", sent, {
        flyAppName: undefined,
        trustedProxies: ["10.0.0.2"],
      }),
    ).toBe("198.51.100.7");
  });
});

describe("clientShareKey", () => {
  test.each([
    ["203.0.113.5", "203.0.113.5"],
    ["::ffff:203.0.113.5", "203.0.113.5"],
    ["::FFFF:203.0.113.5", "203.0.113.5"],
    ["0:0:0:0:0:ffff:203.0.113.5", "203.0.113.5"],
    ["::ffff:cb00:7105", "203.0.113.5"],
    ["[::ffff:203.0.113.5]", "203.0.113.5"],
    [" 203.0.113.5 ", "203.0.113.5"],
  ])("IPv4 %s counts as %s", (address, key) => {
    expect(clientShareKey(address)).toBe(key);
  });

  test("every address of one IPv6 /64 is one client, however it is spelled", () => {
    const keys = [
      "2001:db8:1:2::1",
      "2001:DB8:1:2:ffff:ffff:ffff:ffff",
      "2001:0db8:0001:0002:0:0:0:9",
      "[2001:db8:1:2::abcd]",
      "2001:db8:1:2::1%eth0",
    ].map(clientShareKey);
    expect(new Set(keys)).toEqual(new Set(["2001:0db8:0001:0002::/64"]));
    expect(clientShareKey("2001:db8:1:3::1")).not.toBe(keys[0]);
  });

  test("what is not an address shares one key", () => {
    for (const value of [null, "", "not-an-ip", "999.1.1.1", "1.2.3"]) {
      expect(clientShareKey(value)).toBe("unknown");
    }
  });
});
