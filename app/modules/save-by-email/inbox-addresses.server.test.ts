import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";

process.env.INBOUND_EMAIL_DOMAIN = "In.Example.TEST";
const [{ db }, inbox] = await Promise.all([
  import("~/platform/db.server"),
  import("./inbox-addresses.server"),
]);

describe("a folder's address", () => {
  test("none until asked for; made on asking; a new one replaces it and the old one stops", () => {
    const user = createUser(db);
    const folder = createFolder(db, user.id);
    expect(inbox.inboxAddress(user.id, folder.id)).toBeNull();
    const first = inbox.makeInboxAddress(user.id, folder.id)!;
    expect(first).toMatch(/^[a-km-z2-9]{16}@in\.example\.test$/);
    expect(inbox.inboxAddress(user.id, folder.id)).toBe(first);
    expect(inbox.folderForInboxAddress(first)).toEqual({ folderId: folder.id, userId: user.id });
    const second = inbox.makeInboxAddress(user.id, folder.id)!;
    expect(second).not.toBe(first);
    expect(inbox.folderForInboxAddress(first)).toBeNull();
    expect(inbox.folderForInboxAddress(second)).toEqual({ folderId: folder.id, userId: user.id });
  });

  test("only the owner can see or make a folder's address", () => {
    const owner = createUser(db);
    const stranger = createUser(db);
    const folder = createFolder(db, owner.id);
    expect(() => inbox.makeInboxAddress(stranger.id, folder.id)).toThrow();
    expect(() => inbox.inboxAddress(stranger.id, folder.id)).toThrow();
  });

  test("found under any case and with a +tag, never on another domain or with a near code", () => {
    const user = createUser(db);
    const folder = createFolder(db, user.id);
    const address = inbox.makeInboxAddress(user.id, folder.id)!;
    const [code] = address.split("@") as [string];
    const owner = { folderId: folder.id, userId: user.id };
    expect(inbox.folderForInboxAddress(`${code.toUpperCase()}@IN.EXAMPLE.test`)).toEqual(owner);
    expect(inbox.folderForInboxAddress(`${code}+recipes@in.example.test `)).toEqual(owner);
    expect(inbox.folderForInboxAddress(`${code}@in.example.test.evil`)).toBeNull();
    expect(inbox.folderForInboxAddress(`${code}@example.test`)).toBeNull();
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (local) => {
        fc.pre(local.toLowerCase().split("+")[0]?.trim() !== code);
        expect(inbox.folderForInboxAddress(`${local}@in.example.test`)).toBeNull();
      }),
    );
  });
});
