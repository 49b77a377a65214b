import { describe } from "vitest";
import { testOutboxOpenToAdminsOnly } from "#tests/support/outbox-reader";

// `npm start`'s default APP_URL: it no longer opens the outbox to other machines.
process.env.APP_URL = "http://localhost:3000";

describe("requireOutboxReader with APP_URL on localhost", () => {
  testOutboxOpenToAdminsOnly(process.env.APP_URL!);
});
