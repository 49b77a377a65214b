import { describe, expect, test } from "vitest";
import {
  captureForm,
  captureQuery,
  readCapture,
  titleToSave,
  trimTrailingPunctuation,
} from "./capture.server";

const read = (query: string) => readCapture(new URLSearchParams(query));

describe("readCapture", () => {
  test("reads the extension's parameters", () => {
    expect(read("extension=true&url=https://a.example/x&title=A&note=Hi")).toEqual({
      url: "https://a.example/x",
      title: "A",
      note: "Hi",
      fromBrowser: true,
    });
  });

  test("finds a shared URL inside text and keeps the rest as the note", () => {
    const shared = new URLSearchParams({
      title: "Story",
      text: "Look (https://news.example.org/s/1?x=1), via News",
    });
    expect(read(String(shared))).toMatchObject({
      url: "https://news.example.org/s/1?x=1",
      note: "Look ( via News",
    });
    expect(read("title=Story&text=Story%20https://a.example/")).toMatchObject({
      url: "https://a.example/",
      note: "",
    });
    expect(read("url=https://a.example/&text=https://a.example/%20so%20good")).toMatchObject({
      note: "so good",
    });
  });

  test("a shared page's title loses the site's name it ends with", () => {
    const shared = new URLSearchParams({
      url: "https://www.theguardian.com/food/bread",
      title: "Bread for Sunday | The Guardian",
    });
    expect(read(String(shared)).title).toBe("Bread for Sunday");
    const video = new URLSearchParams({
      title: "Lullaby - YouTube",
      text: "https://www.youtube.com/watch?v=abc",
    });
    expect(read(String(video))).toMatchObject({ title: "Lullaby", note: "" });
  });

  test("nothing captured: a plain /add", () => {
    expect(read("")).toMatchObject({ fromBrowser: false });
    expect(captureQuery(read(""))).toBe("");
  });
});

describe("captureForm", () => {
  test("prefills Add Link with the note as the comment", () => {
    const { defaultValue, lastResult } = captureForm(
      read("url=https://a.example/&title=A&note=Hi"),
    );
    expect(defaultValue).toMatchObject({
      title: "A",
      urls: ["https://a.example/"],
      addComment: true,
      commentText: "Hi",
    });
    expect(lastResult).toBeNull();
  });

  test("reports only what was sent and does not pass", () => {
    const long = "x".repeat(1001);
    const { problems, lastResult } = captureForm(
      read(`url=javascript:alert(1)&title=${"t".repeat(201)}&note=${long}`),
    );
    expect(problems).toEqual({
      title: ["Title too long"],
      url: ["Invalid URL format"],
      note: ["Comment too long"],
    });
    expect(lastResult?.error).toEqual({
      title: ["Title too long"],
      "urls[0]": ["Invalid URL format"],
      commentText: ["Comment too long"],
    });
    expect(captureForm(read("url=https://a.example/")).problems).toEqual({
      title: [],
      url: [],
      note: [],
    });
  });
});

describe("a share without a title or text", () => {
  test("leaves the title for the page's own (fetched at save) and reports nothing", () => {
    const { defaultValue, lastResult } = captureForm(
      read("url=https://www.news.example.org/story/42"),
    );
    expect(defaultValue).toMatchObject({
      title: "",
      urls: ["https://www.news.example.org/story/42"],
      addComment: false,
    });
    expect(lastResult).toBeNull();
  });

  test("a sent title is kept", () => {
    expect(captureForm(read("url=https://a.example/&title=Mine")).defaultValue.title).toBe("Mine");
  });
});

describe("titleToSave", () => {
  const shared = read("url=https://www.bbc.co.uk/news/1&title=Storm warning");

  test("the shared title goes with the shared address", () => {
    const urls = ["https://www.nytimes.com/2026/12/02/storm.html"];
    expect(titleToSave(shared, { title: "Storm warning", urls })).toBe("");
  });

  test("it stays while the address is the shared one, however it is written", () => {
    const urls = ["www.bbc.co.uk/news/1"];
    expect(
      titleToSave(read("url=www.bbc.co.uk/news/1&title=Storm warning"), {
        title: "Storm warning",
        urls: ["https://www.bbc.co.uk/news/1"],
      }),
    ).toBe("Storm warning");
    expect(titleToSave(shared, { title: "Storm warning", urls })).toBe("Storm warning");
  });

  test("a title the sender typed stays with any address", () => {
    const urls = ["https://www.nytimes.com/2026/12/02/storm.html"];
    expect(titleToSave(shared, { title: "Read this one", urls })).toBe("Read this one");
    expect(titleToSave(read("url=https://a.example/"), { title: "Mine", urls })).toBe("Mine");
  });
});

describe("hostile captures", () => {
  test("trimming punctuation after a URL is linear in its length", () => {
    const dots = `https://example.com/${".".repeat(100_000)}a`;
    const started = performance.now();
    expect(trimTrailingPunctuation(`${dots}...)`)).toBe(dots);
    // Quadratic work on 100,000 characters takes seconds; a busy machine's pauses, not 1 s.
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  test("a shared text of many dots is bounded before any pattern runs on it", () => {
    const text = `https://example.com/${".".repeat(15_000)}x ${".".repeat(100_000)}`;
    const started = performance.now();
    const capture = readCapture(new URLSearchParams({ text }));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(capture.url.length).toBeLessThanOrEqual(4096);
  });
});
