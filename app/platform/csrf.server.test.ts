import { describe, expect, test } from "vitest";
import { type CsrfFailure, isCsrfFailure } from "./csrf";
import { issueCsrfToken, KEPT_FIELDS_MAX_CHARS, validateCsrf } from "./csrf.server";

function post(headers: Record<string, string>, fields: Record<string, string>) {
  const formData = new FormData();
  for (const [name, value] of Object.entries(fields)) formData.set(name, value);
  return {
    request: new Request("http://localhost:3000/admin/dashboard", { method: "POST", headers }),
    formData,
  };
}

async function failureOf(headers: Record<string, string>, fields: Record<string, string>) {
  const { request, formData } = post(headers, fields);
  try {
    await validateCsrf(request, formData);
  } catch (thrown) {
    const data = (thrown as { data?: unknown }).data;
    if (isCsrfFailure(data)) return data as CsrfFailure;
    throw thrown;
  }
  return null;
}

describe("validateCsrf", () => {
  test("accepts this visitor's token from the form", async () => {
    const { token, setCookie } = await issueCsrfToken(new Request("http://localhost:3000/"), null);
    const cookie = setCookie!.split(";")[0]!;
    expect(await failureOf({ Cookie: cookie }, { csrf: token, intent: "save" })).toBeNull();
  });

  test("an expired form keeps what was typed, never a password, for sending again", async () => {
    const failure = await failureOf(
      { "Sec-Fetch-Site": "same-origin" },
      { csrf: "stale", intent: "update", firstName: "Ada", password: "hunter22" },
    );
    expect(failure?.reason).toBe("invalid");
    expect(failure?.fields).toEqual([
      { name: "intent", value: "update", secret: false },
      { name: "firstName", value: "Ada", secret: false },
      { name: "password", value: "", secret: true },
    ]);
  });

  test("a post from another site is refused without offering its fields again", async () => {
    const fields = { intent: "grant", email: "attacker@example.com", role: "admin" };
    const crossSite: Record<string, string>[] = [
      { "Sec-Fetch-Site": "cross-site" },
      { Origin: "https://evil.example" },
    ];
    for (const headers of crossSite) {
      const failure = await failureOf(headers, fields);
      expect(failure?.reason).toBe("cross_origin");
      expect(failure?.fields).toEqual([]);
    }
  });

  test("an expired form's fields are kept up to a few KB, however much was posted", async () => {
    const fields: Record<string, string> = { intent: "update", title: "t".repeat(1_000_000) };
    for (let index = 0; index < 500; index += 1) fields[`field${index}`] = "v".repeat(100);
    const failure = await failureOf({ "Sec-Fetch-Site": "same-origin" }, fields);
    const kept = failure?.fields.reduce(
      (sum, field) => sum + field.name.length + field.value.length,
      0,
    );
    expect(kept).toBeLessThanOrEqual(KEPT_FIELDS_MAX_CHARS);
    expect(failure?.fields.slice(0, 2)).toEqual([
      { name: "intent", value: "update", secret: false },
      { name: "title", value: "t".repeat(KEPT_FIELDS_MAX_CHARS - 6 - 5 - 6), secret: false },
    ]);
    expect(JSON.stringify(failure).length).toBeLessThan(2 * KEPT_FIELDS_MAX_CHARS);
  });
});
