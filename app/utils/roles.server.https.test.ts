import { describe, expect, test } from "vitest";

// roles.server.ts on a public (https) deployment: set before any module of ours reads the environment.
process.env.APP_URL = "https://thoughtfully.example";

const { db } = await import("#db/client.server");
const { users } = await import("#db/schema");
const { grantRole, requireOutboxReader } = await import("./roles.server");
const { createSession } = await import("./session.server");

let counter = 0;
function createUser() {
  counter += 1;
  return db
    .insert(users)
    .values({ email: `outbox${counter}@example.com`, emailVerified: true })
    .returning()
    .get();
}

async function outboxRequest(userId?: number) {
  const headers = new Headers();
  if (userId !== undefined) {
    const setCookie = await createSession(userId, new Request("https://thoughtfully.example/"));
    headers.set("Cookie", setCookie.split(";")[0]!);
  }
  return new Request("https://thoughtfully.example/dev/outbox", { headers });
}

async function statusOf(request: Request) {
  const thrown = await requireOutboxReader(request).catch((error: unknown) => error);
  return thrown instanceof Response ? thrown.status : "open";
}

describe("requireOutboxReader on a public (https) deployment", () => {
  test("opens the outbox to admins only; everyone else gets a 404", async () => {
    const admin = createUser();
    grantRole(admin.id, "admin");
    const sender = createUser();
    expect(await statusOf(await outboxRequest(admin.id))).toBe("open");
    expect(await statusOf(await outboxRequest(sender.id))).toBe(404);
    expect(await statusOf(await outboxRequest())).toBe(404);
  });
});
