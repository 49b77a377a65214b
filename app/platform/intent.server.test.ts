import { expect, test } from "vitest";
import { z } from "~/platform/zod";
import { parseIntentForm } from "./intent.server";
import { missingMessage } from "./missing-message";

const Schema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("refresh") }),
  z.object({ intent: z.literal("rename"), name: z.string(missingMessage("Name it")) }),
]);

function form(fields: Record<string, string>) {
  const formData = new FormData();
  for (const [name, value] of Object.entries(fields)) formData.set(name, value);
  return formData;
}

function thrown(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

test("an intent the schema does not name, or none, is a 400", () => {
  for (const fields of [{ intent: "delete" }, { intent: "" }, {}] as Record<string, string>[]) {
    const response = thrown(() => parseIntentForm(form(fields), Schema)) as Response;
    expect(response.status).toBe(400);
  }
});

test("a known intent's field errors come back in the submission, with what was typed", () => {
  const submission = parseIntentForm(form({ intent: "rename", other: "kept" }), Schema);
  expect(submission.status).toBe("error");
  expect(submission.reply()).toMatchObject({
    error: { name: ["Name it"] },
    initialValue: { intent: "rename", other: "kept" },
  });
  const ok = parseIntentForm(form({ intent: "rename", name: "Mum" }), Schema);
  expect(ok.status === "success" && ok.value).toEqual({ intent: "rename", name: "Mum" });
});
