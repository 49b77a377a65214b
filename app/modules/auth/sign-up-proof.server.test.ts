import { afterEach, describe, expect, test, vi } from "vitest";
import {
  clearSignUpProofCookie,
  SIGN_UP_PROOF_TTL_MS,
  signedUpEmail,
  signedUpHere,
  signUpProofCookie,
} from "./sign-up-proof.server";

// An id of nine digits: a short one (42) turned up by chance in the expiry's
// milliseconds or the proof's characters.
const ACCOUNT = { id: 987_654_321, email: "ada@example.com" };

/** The next request of a browser that was given `setCookie`. */
function requestWith(setCookie: string) {
  const cookie = setCookie.split(";")[0]!;
  return new Request("http://localhost:3000/verify-email", { headers: { Cookie: cookie } });
}

/** The cookie's readable payload (it is signed, not secret). */
function payloadOf(setCookie: string) {
  const value = decodeURIComponent(setCookie.split(";")[0]!.split("=").slice(1).join("="));
  const body = value.slice(0, value.lastIndexOf("."));
  return JSON.parse(Buffer.from(body, "base64").toString("utf8"));
}

afterEach(() => {
  vi.useRealTimers();
});

describe("the sign-up proof", () => {
  test("proves the account this browser's sign-up created, and no other", async () => {
    const request = requestWith(await signUpProofCookie(ACCOUNT.email, ACCOUNT.id));
    expect(await signedUpHere(request, ACCOUNT)).toBe(true);
    expect(await signedUpHere(request, { ...ACCOUNT, id: 43 })).toBe(false);
    expect(await signedUpHere(request, { ...ACCOUNT, email: "eve@example.com" })).toBe(false);
    expect(await signedUpEmail(request)).toBe(ACCOUNT.email);
  });

  test("a sign-up of an address that had an account proves nothing, and looks the same", async () => {
    const existing = await signUpProofCookie(ACCOUNT.email, null);
    const created = await signUpProofCookie(ACCOUNT.email, ACCOUNT.id);
    expect(await signedUpHere(requestWith(existing), ACCOUNT)).toBe(false);
    expect(await signedUpEmail(requestWith(existing))).toBe(ACCOUNT.email);
    const [shown, real] = [payloadOf(existing), payloadOf(created)];
    expect(Object.keys(shown)).toEqual(Object.keys(real));
    expect(shown.proof).toHaveLength(real.proof.length);
    expect(JSON.stringify(shown)).not.toContain(String(ACCOUNT.id));
    expect(JSON.stringify(real)).not.toContain(String(ACCOUNT.id));
  });

  test("lasts an hour", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-26T10:00:00Z"));
    const request = requestWith(await signUpProofCookie(ACCOUNT.email, ACCOUNT.id));
    vi.setSystemTime(Date.now() + SIGN_UP_PROOF_TTL_MS - 1000);
    expect(await signedUpHere(request, ACCOUNT)).toBe(true);
    vi.setSystemTime(Date.now() + 2000);
    expect(await signedUpHere(request, ACCOUNT)).toBe(false);
    expect(await signedUpEmail(request)).toBeNull();
  });

  test("an altered or cleared cookie proves nothing", async () => {
    const setCookie = await signUpProofCookie(ACCOUNT.email, ACCOUNT.id);
    const [name, value] = setCookie.split(";")[0]!.split("=") as [string, string];
    const altered = new Request("http://localhost:3000/", {
      headers: { Cookie: `${name}=${value.replace(/^./, (c) => (c === "e" ? "f" : "e"))}` },
    });
    expect(await signedUpHere(altered, ACCOUNT)).toBe(false);
    expect(await signedUpHere(requestWith(await clearSignUpProofCookie()), ACCOUNT)).toBe(false);
    expect(await signedUpHere(new Request("http://localhost:3000/"), ACCOUNT)).toBe(false);
  });

  test("is httpOnly, SameSite=Lax and gone after an hour", async () => {
    const setCookie = await signUpProofCookie(ACCOUNT.email, ACCOUNT.id);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    expect(setCookie).toMatch(/Max-Age=3600/);
  });
});
