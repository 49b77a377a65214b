import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { expect, test, vi } from "vitest";
import { LoginError } from "~/modules/auth/auth.server";
import { BillingError, BillingNotConfigured } from "~/modules/billing/billing.server";
import { UploadRejectedError } from "~/modules/files/upload-rejected.server";
import { FolderNotFoundError, FolderRuleError } from "~/modules/folders/folders.server";
import { ItemNotFoundError, QuotaExceededError } from "~/modules/items/item-rules.server";
import { SendRuleError } from "~/modules/sending/sending.server";
import { DraftNotFoundError } from "~/modules/uploads/upload-drafts.server";
import {
  invariantResponse,
  isDatabaseBusy,
  NotFoundError,
  orNotFound,
  RuleError,
  throwIfDatabaseBusy,
} from "./errors.server";
import { getToast, withFailureToast } from "./toast.server";

async function thrown(work: () => unknown): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

test("every domain's missing thing is a NotFoundError and every broken rule a RuleError", () => {
  for (const error of [
    new FolderNotFoundError(),
    new ItemNotFoundError(),
    new DraftNotFoundError(),
  ]) {
    expect(error).toBeInstanceOf(NotFoundError);
  }
  expect(new FolderRuleError("x")).toBeInstanceOf(RuleError);
  expect(new SendRuleError("x")).toBeInstanceOf(RuleError);
  for (const error of [
    new LoginError("x"),
    new BillingError("x"),
    new BillingNotConfigured(),
    new UploadRejectedError("INVALID_FILE_TYPE", "x"),
  ]) {
    expect(error).toBeInstanceOf(RuleError);
  }
  expect(new UploadRejectedError("INVALID_FILE_TYPE", "x").status).toBe(415);
  expect(Object.getPrototypeOf(QuotaExceededError.prototype)).toBe(RuleError.prototype);
});

test("invariantResponse throws the response it is told, and nothing when the condition holds", async () => {
  expect(() => invariantResponse(true)).not.toThrow();
  const notFound = (await thrown(() => invariantResponse(null))) as Response;
  expect(notFound.status).toBe(404);
  expect(await notFound.text()).toBe("Not Found");
  const bad = (await thrown(() => invariantResponse(false, "Bad Request", 400))) as Response;
  expect(bad.status).toBe(400);
});

test("orNotFound turns a NotFoundError, and only that, into a 404", async () => {
  expect(orNotFound(() => 7)).toBe(7);
  const response = (await thrown(() =>
    orNotFound(() => {
      throw new ItemNotFoundError();
    }),
  )) as Response;
  expect(response).toBeInstanceOf(Response);
  expect(response.status).toBe(404);
  const later = (await orNotFound(async () => {
    throw new FolderNotFoundError();
  }).catch((error: unknown) => error)) as Response;
  expect(later).toBeInstanceOf(Response);
  expect(later.status).toBe(404);
  const rule = new FolderRuleError("Folder limit reached");
  expect(
    await thrown(() =>
      orNotFound(() => {
        throw rule;
      }),
    ),
  ).toBe(rule);
});

test("withFailureToast explains a rule, answers 404 for a missing thing, and hides faults", async () => {
  const toastOf = async (response: Response) => {
    const cookie = (response.headers.get("Set-Cookie") ?? "").split(";")[0]!;
    const { toast } = await getToast(
      new Request("http://localhost/", { headers: { Cookie: cookie } }),
    );
    return toast;
  };
  const ruled = await withFailureToast("/folders/1", "Failed to reorder folder", () => {
    throw new FolderRuleError("Folder limit reached");
  });
  expect(ruled.status).toBe(302);
  expect(ruled.headers.get("Location")).toBe("/folders/1");
  expect(await toastOf(ruled)).toMatchObject({
    title: "Failed to reorder folder",
    description: "Folder limit reached",
  });

  const missing = (await thrown(() =>
    withFailureToast("/folders/1", "Failed", () => {
      throw new FolderNotFoundError();
    }),
  )) as Response;
  expect(missing.status).toBe(404);

  const log = vi.spyOn(console, "error").mockImplementation(() => {});
  const fault = await withFailureToast("/folders/1", "Failed", () => {
    throw new Error("disk full");
  });
  expect(fault.status).toBe(302);
  expect(await toastOf(fault)).toMatchObject({ title: "Failed", description: "Please try again." });
  expect(log).toHaveBeenCalledOnce();
  log.mockRestore();
});

test("a write that met another connection's write lock past its wait is the database busy, however wrapped", () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "thoughtfully-busy-"));
  const holder = new Database(path.join(folder, "app.db"));
  const writer = new Database(path.join(folder, "app.db"), { timeout: 0 });
  try {
    holder.exec("CREATE TABLE notes (text TEXT); BEGIN IMMEDIATE");
    let busy: unknown;
    try {
      writer.exec("INSERT INTO notes VALUES ('hello')");
    } catch (error) {
      busy = error;
    }
    expect(isDatabaseBusy(busy)).toBe(true);
    expect(isDatabaseBusy(new Error("query failed", { cause: busy }))).toBe(true);
    expect(() => throwIfDatabaseBusy(busy)).toThrow(busy as Error);
    expect(isDatabaseBusy(new Error("database is locked"))).toBe(false);
    expect(() => throwIfDatabaseBusy(new Error("other"))).not.toThrow();
  } finally {
    writer.close();
    holder.close();
    fs.rmSync(folder, { recursive: true, force: true });
  }
});
