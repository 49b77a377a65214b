import { describe, expect, test } from "vitest";
import type { WaitingFor } from "~/modules/items/needs-note";
import { listNames, sendNowBlocker } from "./send-now";

const ready = {
  itemCount: 4,
  isUnsubscribed: false,
  isPaused: false,
  pauseReason: null,
  senderVerified: true,
};

describe("sendNowBlocker", () => {
  test("a verified sender's folder with items, not paused, can be sent", () => {
    expect(sendNowBlocker(ready)).toBeNull();
    expect(sendNowBlocker({ ...ready, waiting: ["note", "video", "file"] })).toBeNull();
  });

  const notes: WaitingFor[] = ["note", "note", "note", "note"];
  const mixed: WaitingFor[] = ["note", "video", "note", "file"];
  test.each([
    [{ senderVerified: false }, "Confirm your e-mail address to send."],
    [{ isUnsubscribed: true }, "Every recipient has unsubscribed."],
    [{ pauseReason: "storage_exceeded" }, "over its size limit"],
    [{ isPaused: true }, "Delivery is paused"],
    [{ itemCount: 0 }, "Nothing to send yet"],
    [{ senderPaused: true }, "Your sending is paused"],
    [{ waiting: notes }, "Every item here needs a note first"],
    [{ waiting: mixed }, "Nothing here is ready to send yet"],
  ])("%o says why not", (change, reason) => {
    expect(sendNowBlocker({ ...ready, ...change })).toContain(reason);
  });
});

test("listNames joins the way a person says it", () => {
  expect(listNames(["Mum"])).toBe("Mum");
  expect(listNames(["Mum", "Dad"])).toBe("Mum and Dad");
  expect(listNames(["Mum", "Dad", "Ann"])).toBe("Mum, Dad and Ann");
});
