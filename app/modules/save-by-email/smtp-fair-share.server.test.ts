import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { clientShareKey } from "~/platform/client-address";
import { ClientSessions } from "./smtp-fair-share.server";

describe("ClientSessions", () => {
  test("a client holds its share and no more; another client is not held back; a release makes room", () => {
    const sessions = new ClientSessions(3);
    expect(["a", "b", "c", "d"].map((id) => sessions.admit(id, "203.0.113.9"))).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(sessions.admit("e", "203.0.113.10")).toBe(true);
    sessions.release("b");
    expect(sessions.admit("f", "203.0.113.9")).toBe(true);
    expect(sessions.heldBy("203.0.113.9")).toBe(3);
  });

  test("one client however its address is spelled: IPv4 mapped or not, an IPv6 /64 whole", () => {
    const sessions = new ClientSessions(2);
    expect(sessions.admit("a", "198.51.100.4")).toBe(true);
    expect(sessions.admit("b", "::FFFF:198.51.100.4")).toBe(true);
    expect(sessions.admit("c", "::ffff:c633:6404")).toBe(false);
    expect(sessions.admit("d", "2001:db8:1:2::1")).toBe(true);
    expect(sessions.admit("e", "2001:DB8:1:2:ffff:ffff:ffff:ffff")).toBe(true);
    expect(sessions.admit("f", "[2001:db8:1:2::9]")).toBe(false);
    expect(sessions.admit("g", "2001:db8:1:3::1")).toBe(true);
  });

  test("a session released twice, or refused and released, gives back nothing more", () => {
    const sessions = new ClientSessions(1);
    expect(sessions.admit("held", "192.0.2.1")).toBe(true);
    expect(sessions.admit("refused", "192.0.2.1")).toBe(false);
    sessions.release("refused");
    expect(sessions.heldBy("192.0.2.1")).toBe(1);
    sessions.release("held");
    sessions.release("held");
    expect(sessions.heldBy("192.0.2.1")).toBe(0);
    expect(sessions.admit("next", "192.0.2.1")).toBe(true);
    expect(sessions.admit("after", "192.0.2.1")).toBe(false);
  });

  test("whatever the order of sessions opened and closed, a client holds what it was let in to and not released, never past its share", () => {
    const addresses = ["192.0.2.1", "::ffff:192.0.2.1", "2001:db8::1", "2001:db8::2", "192.0.2.2"];
    const step = fc.oneof(
      fc.record({
        open: fc.integer({ min: 0, max: 11 }),
        from: fc.constantFrom(...addresses),
      }),
      fc.record({ close: fc.integer({ min: 0, max: 11 }) }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.array(step, { maxLength: 60 }),
        (share, steps) => {
          const sessions = new ClientSessions(share);
          const open = new Map<string, string>();
          for (const next of steps) {
            if ("open" in next) {
              const id = String(next.open);
              const client = clientShareKey(next.from);
              const held = [...open.values()].filter((each) => each === client).length;
              const admitted = sessions.admit(id, next.from);
              if (open.has(id)) expect(admitted).toBe(true);
              else {
                expect(admitted).toBe(held < share);
                if (admitted) open.set(id, client);
              }
            } else {
              sessions.release(String(next.close));
              open.delete(String(next.close));
            }
            for (const address of addresses) {
              const client = clientShareKey(address);
              const held = [...open.values()].filter((each) => each === client).length;
              expect(sessions.heldBy(address)).toBe(held);
              expect(held).toBeLessThanOrEqual(share);
            }
          }
        },
      ),
    );
  });
});
