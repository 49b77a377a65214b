import { expect, test } from "vitest";
import { appOrigin, isCrossSite } from "./cross-site.server";

const post = (url: string, headers: Record<string, string>) =>
  new Request(url, { method: "POST", headers });

test("ours is APP_URL's origin or the one the request was sent to, nothing else", () => {
  expect(appOrigin).toBe("http://localhost:3000");
  expect(isCrossSite(post("http://127.0.0.1:3000/login", { Origin: appOrigin }))).toBe(false);
  expect(
    isCrossSite(post("http://127.0.0.1:3000/login", { Origin: "http://127.0.0.1:3000" })),
  ).toBe(false);
  expect(
    isCrossSite(post("http://127.0.0.1:3000/login", { Origin: "http://127.0.0.1:3001" })),
  ).toBe(true);
  expect(isCrossSite(post("http://localhost:3000/add/share", { "Sec-Fetch-Site": "none" }))).toBe(
    false,
  );
  expect(
    isCrossSite(post("http://localhost:3000/add/share", { "Sec-Fetch-Site": "cross-site" })),
  ).toBe(true);
});
