import { describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";

process.env.INBOUND_EMAIL_DOMAIN = "in.example.test";
const [{ db }, inbox, envelope, { consumeRateLimit, peekRateLimit }, { SAVES_PER_FOLDER }] =
  await Promise.all([
    import("~/platform/db.server"),
    import("./inbox-addresses.server"),
    import("./smtp-envelope.server"),
    import("~/platform/rate-limit.server"),
    import("./save-by-email.server"),
  ]);
const { envelopeSenderProblem, recipientRefusal, MESSAGES_PER_ADDRESS, RECIPIENTS_PER_CLIENT } =
  envelope;

function ownedAddress(email: string, emailVerified = true) {
  const user = createUser(db, { email, emailVerified });
  const folder = createFolder(db, user.id);
  return { folder, address: inbox.makeInboxAddress(user.id, folder.id)! };
}

describe("envelopeSenderProblem", () => {
  const owner = { email: "Ada@Family.test", emailVerified: true };

  test("the owner's verified address passes, however its case is spelled", () => {
    expect(envelopeSenderProblem("ada@family.TEST", owner)).toBeNull();
  });

  test("a bounce, another address, a rewritten one or an unverified owner does not", () => {
    expect(envelopeSenderProblem("", owner)).toMatch(/no bounces/);
    expect(envelopeSenderProblem("bo@family.test", owner)).toMatch(/owner only/);
    expect(envelopeSenderProblem("SRS0=HHH=TT=family.test=ada@forwarder.example", owner)).toMatch(
      /owner only/,
    );
    expect(envelopeSenderProblem("ada@family.test", { ...owner, emailVerified: false })).toMatch(
      /owner only/,
    );
  });
});

describe("recipientRefusal", () => {
  test("an unknown or replaced address is refused for good", async () => {
    const { folder, address } = ownedAddress("cy@family.test");
    inbox.makeInboxAddress(folder.userId, folder.id);
    expect(await recipientRefusal(address, "cy@family.test", "192.0.2.1")).toMatchObject({
      responseCode: 550,
      message: "No such mailbox here",
    });
    expect(
      await recipientRefusal("abcdefghijkmnpqr@in.example.test", "cy@family.test", "192.0.2.1"),
    ).toMatchObject({ responseCode: 550 });
  });

  test("the owner is accepted; a stranger and a bounce are refused for good", async () => {
    const { address } = ownedAddress("di@family.test");
    expect(await recipientRefusal(address, "di@family.test", "192.0.2.2")).toBeNull();
    expect(await recipientRefusal(address, "eve@family.test", "192.0.2.2")).toMatchObject({
      responseCode: 550,
    });
    expect(await recipientRefusal(address, "", "192.0.2.2")).toMatchObject({ responseCode: 550 });
  });

  test("a folder whose saves are spent for the hour is told to try later, and its count is not taken", async () => {
    const { folder, address } = ownedAddress("flo@family.test");
    await consumeRateLimit(SAVES_PER_FOLDER, String(folder.id), SAVES_PER_FOLDER.points);
    expect(await recipientRefusal(address, "flo@family.test", "192.0.2.3")).toMatchObject({
      responseCode: 452,
    });
    expect(await peekRateLimit(MESSAGES_PER_ADDRESS, String(folder.id))).toMatchObject({
      remaining: MESSAGES_PER_ADDRESS.points,
    });
  });

  test("past the messages one address takes in an hour, the next is told to try later", async () => {
    const { address } = ownedAddress("gus@family.test");
    const verdicts = [];
    for (let index = 0; index <= MESSAGES_PER_ADDRESS.points; index += 1) {
      verdicts.push(await recipientRefusal(address, "gus@family.test", `198.51.100.${index}`));
    }
    expect(verdicts.slice(0, -1).every((verdict) => verdict === null)).toBe(true);
    expect(verdicts.at(-1)).toMatchObject({ responseCode: 452 });
  });

  test("past the recipients one client may name in an hour, even known ones are told to try later", async () => {
    const { address } = ownedAddress("hal@family.test");
    for (let index = 0; index < RECIPIENTS_PER_CLIENT.points; index += 1) {
      await recipientRefusal(
        `abcdefghijkmnp${index % 10}q@in.example.test`,
        "x@y.test",
        "192.0.2.9",
      );
    }
    expect(await recipientRefusal(address, "hal@family.test", "192.0.2.9")).toMatchObject({
      responseCode: 452,
    });
    expect(await recipientRefusal(address, "hal@family.test", "192.0.2.10")).toBeNull();
  });
});
