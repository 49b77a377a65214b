import net from "node:net";
import { expect, test } from "vitest";
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
