import net from "node:net";
import { expect, onTestFinished, test } from "vitest";
import { openRawSmtpSession, type RawSmtpSession } from "../support/raw-smtp-session";
import { startSaveByEmailWorld } from "../support/save-by-email-world";

/**
 * Issue 38 on Fly.io: its proxy is the peer of every connection, so with
 * INBOUND_SMTP_PROXY_PROTOCOL the receiver reads the sender's address from
 * the PROXY protocol v1 header Fly's proxy_proto handler writes first, and
 * counts and checks that address, not the proxy's
 * (docs/decisions/0171-smtp-on-fly-one-machine-dedicated-ipv4-proxy-protocol.md).
 * Needs `npm run build` first.
 */
const world = await startSaveByEmailWorld({ INBOUND_SMTP_PROXY_PROTOCOL: "true" });
const { db, schema, drizzle, smtpPort, address, folder, itemsOf } = world;

const SENDER = "203.0.113.7";

test("the sender's address comes from the PROXY header: its message is saved and its connections and recipients are counted", async () => {
  const raw = await world.rawMessage(world.recipe(address));
  const replies = await world.smtpDialog(
    [
      "EHLO mail.family.test",
      "MAIL FROM:<ada@family.test>",
      `RCPT TO:<${address}>`,
      "DATA",
      `${raw.replace(/\r?\n/g, "\r\n")}\r\n.`,
      "QUIT",
    ],
    `PROXY TCP4 ${SENDER} 127.0.0.1 40000 ${smtpPort}\r\n`,
  );
  expect(replies.map((reply) => reply.slice(0, 3))).toEqual([
    "220",
    "250",
    "250",
    "250",
    "354",
    "250",
    "221",
  ]);
  expect(itemsOf(folder.id).map((item) => item.type)).toEqual(["link", "photo"]);
  expect(
    db
      .select()
      .from(schema.rateLimits)
      .where(drizzle.like(schema.rateLimits.key, "smtp:client%"))
      .all()
      .map((row) => row.key)
      .sort(),
  ).toEqual([`smtp:client-rcpt:${SENDER}`, `smtp:client:${SENDER}`]);
});

test("a connection without the header is not greeted: the receiver waits for the header", async () => {
  const received = await new Promise<string>((resolve, reject) => {
    let data = "";
    const socket = net.connect(smtpPort, "127.0.0.1");
    socket.on("data", (chunk) => {
      data += chunk.toString();
    });
    socket.on("error", reject);
    setTimeout(() => {
      socket.destroy();
      resolve(data);
    }, 500);
  });
  expect(received).toBe("");
});

test("sessions are counted by the header's address (issue 59): one client holds three however it is spelled, an IPv6 /64 is one client, and other clients are greeted", async () => {
  const sessions: RawSmtpSession[] = [];
  onTestFinished(() => {
    for (const session of sessions) session.socket.destroy();
  });
  const viaProxy = (header: string) => {
    const session = openRawSmtpSession(smtpPort);
    session.socket.write(`${header} 40000 ${smtpPort}\r\n`);
    sessions.push(session);
    return session;
  };
  const greetingsOf = (headers: string[]) =>
    Promise.all(headers.map((header) => viaProxy(header).reply()));
  const held = await greetingsOf([
    "PROXY TCP4 198.51.100.21 127.0.0.1",
    "PROXY TCP6 ::ffff:198.51.100.21 ::1",
    "PROXY TCP4 198.51.100.21 127.0.0.1",
    "PROXY TCP6 2001:db8:7:7::1 ::1",
    "PROXY TCP6 2001:db8:7:7::2 ::1",
    "PROXY TCP6 2001:db8:7:7:ffff:ffff:ffff:ffff ::1",
  ]);
  expect(held.map((greeting) => greeting.slice(0, 3))).toEqual(Array(6).fill("220"));
  const past = await greetingsOf([
    "PROXY TCP6 ::ffff:c633:6415 ::1",
    "PROXY TCP6 2001:DB8:7:7::9 ::1",
  ]);
  for (const greeting of past)
    expect(greeting).toMatch(/^421 Too many connections from your address/);
  const others = await greetingsOf([
    "PROXY TCP4 198.51.100.22 127.0.0.1",
    "PROXY TCP6 2001:db8:7:8::1 ::1",
  ]);
  expect(others.map((greeting) => greeting.slice(0, 3))).toEqual(["220", "220"]);
});
