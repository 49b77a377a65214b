import { describe, expect, test } from "vitest";
import { createUser } from "#db/factories";
import { type CsrfFailure, isCsrfFailure } from "~/platform/csrf";
import { db } from "~/platform/db.server";
import { KEPT_FIELDS_MAX_CHARS } from "~/platform/kept-fields.server";
import { issueCsrfToken, validateCsrf } from "./csrf.server";
import { createSession, getCurrentSession, revokeUserSessions } from "./session.server";

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

  test("a form made for a session that has since ended goes to log in, keeping what was typed", async () => {
    const user = createUser(db);
    const setCookie = await createSession(
      user.id,
      new Request("http://localhost:3000/"),
      "password",
    );
    const cookie = setCookie.split(";")[0]!;
    const page = new Request("http://localhost:3000/profile", { headers: { Cookie: cookie } });
    const { token } = await issueCsrfToken(page, (await getCurrentSession(page))!.sessionId);
    revokeUserSessions(user.id);

    const { request, formData } = post(
      { Cookie: cookie, "Sec-Fetch-Site": "same-origin" },
      { csrf: token, firstName: "Ada" },
    );
    const thrown = await validateCsrf(request, formData).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(Response);
    const answer = thrown as Response;
    expect(answer.status).toBe(302);
    expect(answer.headers.get("Location")).toBe(
      "/login?reason=session_expired&redirectTo=%2Fadmin%2Fdashboard",
    );
    expect(answer.headers.get("Set-Cookie")).toMatch(/^thoughtfully_draft=/);

    // A token of no session of this browser's is the old "submit again" page.
    expect((await failureOf({ Cookie: cookie }, { csrf: "stale", firstName: "Ada" }))?.reason).toBe(
      "invalid",
    );
  });
});
