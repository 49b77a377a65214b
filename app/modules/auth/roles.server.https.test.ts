import { describe } from "vitest";
import { testOutboxOpenToAdminsOnly } from "#tests/support/outbox-reader";

// A public (https) deployment: set before any module of ours reads the environment.
process.env.APP_URL = "https://thoughtfully.example";

describe("requireOutboxReader on a public (https) deployment", () => {
  testOutboxOpenToAdminsOnly(process.env.APP_URL!);
});
