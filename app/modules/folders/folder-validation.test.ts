import { parseWithZod } from "@conform-to/zod/v4";
import { describe, expect, test } from "vitest";
import { FolderBodySchema, FolderSchema } from "./folder-validation";

function parse(fields: Record<string, string>) {
  const formData = new FormData();
  for (const [name, value] of Object.entries(fields)) formData.append(name, value);
  return parseWithZod(formData, { schema: FolderSchema });
}

function errorsOf(submission: ReturnType<typeof parse>) {
  return submission.status === "success" ? {} : (submission.error ?? {});
}

describe("FolderSchema", () => {
  test("reports every problem at once with the spec's messages", () => {
    const submission = parse({
      name: "  ",
      "recipients[0].name": "Mum",
      "recipients[0].email": "mum-at-home",
      signoffEnabled: "on",
      personalSignoff: " ",
    });
    expect(submission.status).toBe("error");
    expect(errorsOf(submission)).toMatchObject({
      name: ["Please enter a folder name"],
      "recipients[0].email": ["Please enter a valid email address for Mum"],
      personalSignoff: ["Please enter a personal sign-off or uncheck the option"],
    });
  });

  test.each([
    ["ann@example.com", "ANN@example.com"],
    ["ann@example.com", "ann+news@example.com"],
    ["a.nn@gmail.com", "ann@googlemail.com"],
  ])("refuses a second row for the same mailbox (%s, %s)", (first, second) => {
    const submission = parse({
      name: "Family",
      "recipients[0].name": "Ann",
      "recipients[0].email": first,
      "recipients[1].name": "Annie",
      "recipients[1].email": second,
    });
    expect(errorsOf(submission)).toMatchObject({
      "recipients[1].email": ["Annie has the same email address as Ann"],
    });
  });

  test("different mailboxes are different recipients", () => {
    const submission = parse({
      name: "Family",
      "recipients[0].name": "Ann",
      "recipients[0].email": "ann@example.com",
      "recipients[1].name": "Bo",
      "recipients[1].email": "bo@example.com",
    });
    expect(submission.status).toBe("success");
  });

  test("drops incomplete rows and needs one complete recipient", () => {
    const submission = parse({ name: "Family", "recipients[0].name": "Only a name" });
    expect(errorsOf(submission)).toMatchObject({
      recipients: ["Please add at least one recipient"],
    });
  });

  test("trims, cuts the name to 30 characters and lower-cases e-mails", () => {
    const submission = parse({
      name: `  ${"x".repeat(35)}  `,
      "recipients[0].name": " Mum ",
      "recipients[0].email": " Mum@Example.COM ",
      "recipients[1].name": "",
      "recipients[1].email": "dropped@example.com",
      frequency: "monthly",
      dayOfMonth: "31",
      ccSender: "on",
    });
    expect(submission.status).toBe("success");
    if (submission.status !== "success") return;
    expect(submission.value).toEqual({
      name: "x".repeat(30),
      recipients: [{ name: "Mum", email: "mum@example.com" }],
      frequency: "monthly",
      dayOfWeek: 1,
      dayOfMonth: 31,
      ccSender: true,
      personalSignoff: null,
      answerEmails: "daily",
    });
  });

  test("answers come by e-mail once a day unless the sender chose each note or none", () => {
    const folder = { name: "Family", "recipients[0].name": "Mum", "recipients[0].email": "m@x.io" };
    for (const answerEmails of ["each", "none"] as const) {
      const submission = parse({ ...folder, answerEmails });
      expect(submission.status === "success" && submission.value.answerEmails).toBe(answerEmails);
    }
    expect(errorsOf(parse({ ...folder, answerEmails: "hourly" }))).toHaveProperty("answerEmails");
  });

  test("refuses more than five recipients and out-of-range days", () => {
    const fields: Record<string, string> = { name: "Big", dayOfWeek: "8" };
    for (let index = 0; index < 6; index += 1) {
      fields[`recipients[${index}].name`] = `R${index}`;
      fields[`recipients[${index}].email`] = `r${index}@example.com`;
    }
    const submission = parse(fields);
    expect(submission.status).toBe("error");
    expect(Object.keys(errorsOf(submission))).toEqual(
      expect.arrayContaining(["recipients", "dayOfWeek"]),
    );
  });

  test("accepts only a bare address, stored in its canonical form", () => {
    for (const email of ["<mum@example.com>", "Mum <mum@example.com>", "mum@example.com, x@y.z"]) {
      const submission = parse({
        name: "Family",
        "recipients[0].name": "Mum",
        "recipients[0].email": email,
      });
      expect(errorsOf(submission)).toMatchObject({
        "recipients[0].email": ["Please enter a valid email address for Mum"],
      });
    }
    const submission = parse({
      name: "Family",
      "recipients[0].name": "Mum",
      "recipients[0].email": "Mum@BÜCHER.example",
    });
    expect(submission.status === "success" && submission.value.recipients).toEqual([
      { name: "Mum", email: "mum@xn--bcher-kva.example" },
    ]);
  });
});

describe("a folder sent as JSON (FolderBodySchema)", () => {
  const body = (recipients: { name?: string; email?: string }[]) => ({
    name: "Family",
    recipients,
    frequency: "weekly",
    dayOfWeek: 1,
  });

  test("a recipient without a name is refused by address, not dropped", () => {
    const result = FolderBodySchema.safeParse(
      body([{ name: "Mum", email: "mum@example.com" }, { email: "dad@example.com" }]),
    );
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([
      expect.objectContaining({
        path: ["recipients", 1, "name"],
        message: "Please enter a name for dad@example.com",
      }),
    ]);
  });

  test("a recipient without an address is refused by name", () => {
    const result = FolderBodySchema.safeParse(body([{ name: "Mum" }]));
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([
      "Please enter an email address for Mum",
      "Please add at least one recipient",
    ]);
  });

  test("whole rows pass as in the form", () => {
    const parsed = FolderBodySchema.parse(body([{ name: "Mum", email: "mum@example.com" }]));
    expect(parsed.recipients).toEqual([{ name: "Mum", email: "mum@example.com" }]);
    // The form itself still drops a half-filled row.
    expect(
      FolderSchema.parse(
        body([{ name: "Mum", email: "mum@example.com" }, { email: "x@example.com" }]),
      ).recipients,
    ).toHaveLength(1);
  });
});
