import { renderToString } from "react-dom/server";
import { describe, expect, test } from "vitest";
import { AnswerTotals } from "./sent-issues";

const text = (html: string) => html.replace(/<[^>]+>/g, "").replace(/<!-- -->/g, "");

describe("AnswerTotals", () => {
  test("says nothing of an issue nobody answered", () => {
    expect(renderToString(<AnswerTotals answers={null} />)).toBe("");
    expect(renderToString(<AnswerTotals answers={{ hearts: 0, notes: 0 }} />)).toBe("");
  });

  test("counts hearts and notes, and how many are new", () => {
    expect(text(renderToString(<AnswerTotals answers={{ hearts: 3, notes: 1 }} />))).toBe(
      "Answers: ♥ 3 · 1 note",
    );
    expect(text(renderToString(<AnswerTotals answers={{ hearts: 0, notes: 2 }} fresh={2} />))).toBe(
      "Answers: 2 notes · 2 new",
    );
  });
});
