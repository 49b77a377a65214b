import { describe } from "vitest";
import { testOutboxOpenToAdminsOnly } from "#tests/support/outbox-reader";

// A deployment left on plain http (a misconfiguration, or a home server): set before any
// module of ours reads the environment.
process.env.APP_URL = "http://thoughtfully.example";

describe("requireOutboxReader on a deployment on plain http", () => {
  testOutboxOpenToAdminsOnly(process.env.APP_URL!);
});
