import fs from "node:fs";
import { describe, expect, test, vi } from "vitest";
import { users } from "#db/schema";
import {
  db,
  writeTransaction,
  writeTransactionWithAsyncFsync,
  writeTransactionWithoutFsync,
} from "./db.server";

/** 1 is NORMAL (written to the WAL, no fsync at commit), 2 is FULL (fsync at every commit). */
const synchronous = () => db.$client.pragma("synchronous", { simple: true });

const storedEmails = () =>
  db
    .select()
    .from(users)
    .all()
    .map((user) => user.email);

describe("writeTransactionWithoutFsync", () => {
  test("commits with synchronous=NORMAL, then every other write is FULL again", () => {
    expect(synchronous()).toBe(2);
    const seen = writeTransactionWithoutFsync((tx) => {
      tx.insert(users).values({ email: "group@example.com" }).run();
      return synchronous();
    });
    expect(seen).toBe(1);
    expect(synchronous()).toBe(2);
    expect(storedEmails()).toContain("group@example.com");
  });

  test("a send's worth of commits holds no memory outside the heap", () => {
    // A pass commits once a message. With better-sqlite3's pragma(), each commit left two
    // statements for V8 to free when it got round to it: 25,000 commits held 141 to 150 MB.
    // Without them the loop's own garbage still grows RSS by 20 to 60 MB, the more the busier
    // the machine; 100 MB tells the two apart.
    const statement = db.$client.prepare("SELECT 1");
    const before = process.memoryUsage().rss;
    for (let commit = 0; commit < 25_000; commit++) {
      writeTransactionWithoutFsync(() => statement.get());
    }
    const grownMb = (process.memoryUsage().rss - before) / 1024 / 1024;
    expect(grownMb).toBeLessThan(100);
  });

  test("a failing write rolls back and still leaves FULL behind", () => {
    expect(() =>
      writeTransactionWithoutFsync((tx) => {
        tx.insert(users).values({ email: "rolled-back@example.com" }).run();
        throw new Error("no");
      }),
    ).toThrow("no");
    expect(synchronous()).toBe(2);
    expect(storedEmails()).not.toContain("rolled-back@example.com");
  });

  test("inside another transaction it joins it, whose commit is fsynced", () => {
    const seen = writeTransaction(() => writeTransactionWithoutFsync(() => synchronous()));
    expect(seen).toBe(2);
    expect(synchronous()).toBe(2);
  });
});

describe("writeTransactionWithAsyncFsync", () => {
  test("commits without the in-commit fsync, then fdatasyncs the WAL before resolving", async () => {
    const fdatasync = fs.fdatasync;
    const synced: number[] = [];
    const spy = vi.spyOn(fs, "fdatasync").mockImplementation((fd, callback) =>
      fdatasync(fd, (error) => {
        synced.push(fd);
        callback(error);
      }),
    );
    try {
      const pending = writeTransactionWithAsyncFsync((tx) => {
        tx.insert(users).values({ email: "async-fsync@example.com" }).run();
        return synchronous();
      });
      expect(synced).toEqual([]);
      expect(await pending).toBe(1);
      await writeTransactionWithAsyncFsync((tx) => {
        tx.insert(users).values({ email: "async-fsync-2@example.com" }).run();
      });
    } finally {
      spy.mockRestore();
    }
    const wal = fs.statSync(`${db.$client.name}-wal`);
    expect(synced).toHaveLength(2);
    // The WAL's own file, one descriptor kept for every mark.
    expect(synced[1]).toBe(synced[0]);
    expect(fs.fstatSync(synced[0]!).ino).toBe(wal.ino);
    expect(synchronous()).toBe(2);
    expect(storedEmails()).toEqual(
      expect.arrayContaining(["async-fsync@example.com", "async-fsync-2@example.com"]),
    );
  });
});
