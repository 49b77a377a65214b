import { describe, expect, test } from "vitest";
import { FolderSchema } from "~/modules/folders/folder-validation";
import { FolderUpdateSchema, seedFolderBody, withItemDetails } from "./seed-shapes";

const current = {
  name: "Family",
  recipients: [{ name: "Mum", email: "mum@example.com" }],
  frequency: "monthly",
  dayOfWeek: 3,
  dayOfMonth: 15,
  ccSender: true,
  personalSignoff: "Love, Ann",
  answerEmails: "none",
};

const parsed = (body: unknown) => FolderSchema.parse(body);

describe("seedFolderBody", () => {
  test("a sign-off given is wanted; signoffEnabled: false still leaves it off", () => {
    const body = { name: "F", recipients: current.recipients, personalSignoff: "Bye" };
    expect(parsed(seedFolderBody(body)).personalSignoff).toBe("Bye");
    expect(parsed(seedFolderBody({ ...body, signoffEnabled: false })).personalSignoff).toBeNull();
    expect(parsed(seedFolderBody({ ...body, personalSignoff: "  " })).personalSignoff).toBeNull();
  });

  test("an update keeps every field it leaves out; null clears the sign-off", () => {
    expect(parsed(seedFolderBody({}, current))).toEqual({
      ...current,
      recipients: current.recipients,
    });
    expect(parsed(seedFolderBody({ name: "Renamed" }, current))).toMatchObject({
      name: "Renamed",
      personalSignoff: "Love, Ann",
      dayOfMonth: 15,
    });
    expect(parsed(seedFolderBody({ personalSignoff: null }, current)).personalSignoff).toBeNull();
    expect(parsed(seedFolderBody({ answerEmails: "each" }, current)).answerEmails).toBe("each");
  });

  test("the seed's nulls are fields left out", () => {
    const body = {
      name: "Weekly",
      recipients: current.recipients,
      frequency: "weekly",
      dayOfMonth: null,
      timeOfDay: "00:01",
    };
    expect(parsed(seedFolderBody(body))).toMatchObject({ frequency: "weekly", dayOfMonth: null });
    expect(parsed(seedFolderBody({ name: null }, current)).name).toBe("Family");
  });

  test("what is not an object is left for the schema to refuse", () => {
    expect(seedFolderBody("text")).toBe("text");
  });
});

describe("withItemDetails", () => {
  const item = {
    title: "Holiday",
    addComment: true,
    commentText: "Look!",
    askQuestion: false,
    questionText: null,
    responseExpectation: "na",
  };

  test("fills only the fields the form leaves out", () => {
    const form = new FormData();
    form.append("title", "Beach");
    const completed = withItemDetails(form, item);
    expect(Object.fromEntries(completed)).toEqual({
      title: "Beach",
      addComment: "true",
      commentText: "Look!",
      askQuestion: "false",
      responseExpectation: "na",
    });
  });
});

describe("FolderUpdateSchema", () => {
  test("a field left out stays out: no default takes its place", () => {
    expect(FolderUpdateSchema.parse({ name: "Renamed" })).toEqual({ name: "Renamed" });
    expect(FolderUpdateSchema.parse({ personalSignoff: null, dayOfWeek: "3" })).toEqual({
      personalSignoff: null,
      dayOfWeek: 3,
    });
  });
});
