import { afterAll, describe, expect, test } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import { runInRequestContext } from "~/platform/request-context.server";
import { startSmtpSink } from "../support/integration";

/**
 * Nobody can use Thoughtfully to flood an inbox: fifteen requests in a burst
 * to each endpoint that sends mail, posted to the real route actions, yield
 * at most three messages at a real SMTP server, and every refused request
 * gets a "try again in N minutes" answer, never an error page.
 */
const sink = await startSmtpSink();

const { db } = await import("~/platform/db.server");
const { createSession, getCurrentSession } = await import("~/modules/auth/session.server");
const { issueCsrfToken } = await import("~/modules/auth/csrf.server");
const { waitForBackgroundWork } = await import("~/platform/background-work.server");
const { getToast } = await import("~/platform/toast.server");
const signup = await import("~/routes/_auth+/signup");
const forgotPassword = await import("~/routes/_auth+/forgot-password");
const resendVerification = await import("~/routes/_auth+/resend-verification");
const preview = await import("~/routes/folders+/$folderId.preview");
const send = await import("~/routes/folders+/$folderId.send");
// Mail still on its way reaches the sink before it stops (after-hooks run last first).
afterAll(waitForBackgroundWork);

const ORIGIN = "http://localhost:3000";
const BURST = 15;
async function anonymousForm(
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const probe = new Request(`${ORIGIN}${path}`);
  const { token, setCookie } = await issueCsrfToken(probe, null);
  const cookie = setCookie!.split(";")[0]!;
  return () =>
    new Request(`${ORIGIN}${path}`, {
      method: "POST",
      headers: {
        ...headers,
        Cookie: cookie,
        Origin: ORIGIN,
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ csrf: token, ...fields }),
    });
}

async function signedInForm(userId: number, path: string) {
  const setCookie = await createSession(userId, new Request(`${ORIGIN}/`), "password");
  const cookie = setCookie.split(";")[0]!;
  const session = await getCurrentSession(
    new Request(`${ORIGIN}${path}`, { headers: { Cookie: cookie } }),
  );
  const { token } = await issueCsrfToken(new Request(`${ORIGIN}${path}`), session!.sessionId);
  return () =>
    new Request(`${ORIGIN}${path}`, {
      method: "POST",
      headers: {
        Cookie: cookie,
        Origin: ORIGIN,
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ csrf: token }),
    });
}

/** Runs the action BURST times; returns what each answered (status and form errors). */
async function burst(run: () => Promise<unknown>) {
  const answers: { status: number; text: string }[] = [];
  for (let index = 0; index < BURST; index += 1) {
    let outcome: unknown;
    try {
      outcome = await run();
    } catch (thrown) {
      outcome = thrown;
    }
    answers.push(await describeAnswer(outcome));
  }
  // The sink keeps a message before it answers 250, so each one sent is there now.
  await waitForBackgroundWork();
  return answers;
}

async function describeAnswer(outcome: unknown) {
  if (outcome instanceof Response) {
    const cookie = outcome.headers.get("Set-Cookie")?.split(";")[0] ?? "";
    const { toast } = await getToast(new Request(ORIGIN, { headers: { Cookie: cookie } }));
    return { status: outcome.status, text: JSON.stringify(toast) };
  }
  const single = outcome as { init?: { status?: number }; data?: unknown };
  return { status: single.init?.status ?? 200, text: JSON.stringify(single.data ?? null) };
}

function refusals(answers: { status: number; text: string }[]) {
  return answers.filter((answer) => /Please try again in (a minute|\d+ minutes)/.test(answer.text));
}

describe("fifteen requests for one address yield at most three e-mails", () => {
  test("sign-up of an address that has an account", async () => {
    const owner = createUser(db);
    const request = await anonymousForm("/signup", {
      firstName: "Mallory",
      lastName: "M",
      email: owner.email,
      password: "another password 123",
      timeZone: "UTC",
    });
    const answers = await burst(() =>
      signup.action({ request: request(), params: {}, context: {} }),
    );
    expect(sink.to(owner.email).length).toBeGreaterThan(0);
    expect(sink.to(owner.email).length).toBeLessThanOrEqual(3);
    expect(refusals(answers)).toHaveLength(BURST - 3);
  });

  test("forgot password", async () => {
    const owner = createUser(db);
    const request = await anonymousForm("/forgot-password", { email: owner.email });
    const answers = await burst(() =>
      forgotPassword.action({ request: request(), params: {}, context: {} }),
    );
    expect(sink.to(owner.email)).toHaveLength(3);
    expect(refusals(answers)).toHaveLength(BURST - 3);
    expect(answers.every((answer) => answer.status < 500)).toBe(true);
  });

  test("resend verification", async () => {
    const owner = createUser(db, { emailVerified: false });
    const request = await anonymousForm("/resend-verification", { email: owner.email });
    const answers = await burst(() =>
      resendVerification.action({ request: request(), params: {}, context: {} }),
    );
    expect(sink.to(owner.email)).toHaveLength(3);
    expect(refusals(answers)).toHaveLength(BURST - 3);
  });

  test("send me a test and Send Now", async () => {
    const sender = createUser(db);
    const folder = createFolder(db, sender.id, {
      name: "Family",
      recipients: [{ name: "Target", email: "target@example.test" }],
    });
    const addItem = () => createItem(db, folder.id);
    addItem();
    const testRequest = await signedInForm(sender.id, `/folders/${folder.id}/preview`);
    const testAnswers = await burst(() =>
      preview.action({
        request: testRequest(),
        params: { folderId: String(folder.id) },
        context: {},
      }),
    );
    expect(sink.to(sender.email)).toHaveLength(3);
    expect(refusals(testAnswers)).toHaveLength(BURST - 3);

    const sendRequest = await signedInForm(sender.id, `/folders/${folder.id}/send`);
    const sendAnswers = await burst(() => {
      addItem();
      return send.action({
        request: sendRequest(),
        params: { folderId: String(folder.id) },
        context: {},
      });
    });
    // Send Now's limit is the recipient's: 3 issues a day from one sender (docs/product-rules.md).
    expect(sink.to("target@example.test")).toHaveLength(3);
    expect(
      sendAnswers.filter((answer) =>
        /Send Now reaches a recipient at most 3 times a day.*Please try again in 24 hours/.test(
          answer.text,
        ),
      ),
    ).toHaveLength(BURST - 3);
  });
});

test("one client asking for many addresses is limited too", async () => {
  const answers = [];
  for (let index = 0; index < 12; index += 1) {
    const owner = createUser(db);
    const request = await anonymousForm("/forgot-password", { email: owner.email });
    // The server hands the socket's peer to the app this way (app/platform/request-context.server.ts).
    const answer = await runInRequestContext({ peerAddress: "198.51.100.7" }, () =>
      forgotPassword.action({ request: request(), params: {}, context: {} }),
    );
    answers.push(await describeAnswer(answer));
  }
  expect(refusals(answers)).toHaveLength(2);
});
