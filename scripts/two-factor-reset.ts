import { parseArgs } from "node:util";
import { findUserIdByEmail } from "~/modules/auth/roles.server";
import { resetTwoFactorByOperator } from "~/modules/auth/two-factor.server";
import { db } from "~/platform/db.server";

/**
 * `npm run two-factor:reset -- EMAIL --reason TEXT`: turns off two-factor
 * sign-in for someone who lost their authenticator and their recovery codes,
 * once the operator has made sure, outside the app, that it is them.
 */
function run(argv: string[]) {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { reason: { type: "string" } },
  });
  const email = positionals[0];
  if (!email || positionals.length > 1 || !values.reason?.trim()) {
    console.error('Usage: npm run two-factor:reset -- EMAIL --reason "how you checked it is them"');
    return 2;
  }
  const userId = findUserIdByEmail(email);
  if (userId === null) {
    console.error(`No account with the e-mail ${email}`);
    return 1;
  }
  const reset = resetTwoFactorByOperator(userId, values.reason.trim());
  console.log(
    reset
      ? `Two-factor sign-in is off for ${email}; every session of theirs has ended`
      : `${email} had no two-factor sign-in`,
  );
  return 0;
}

let code = 1;
try {
  code = run(process.argv.slice(2));
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
} finally {
  db.$client.close();
}
process.exitCode = code;
