import { parseArgs } from "node:util";
import { findUserIdByEmail, grantRole, revokeRole } from "~/modules/auth/roles.server";
import { db } from "~/platform/db.server";

/**
 * `npm run admin:grant -- EMAIL [--reason TEXT]` and `npm run admin:revoke --
 * EMAIL [--reason TEXT]`: the way to make the first admin. The change is a
 * `user_roles` row (or its revocation) with the reason and `source: cli`.
 */
export function runAdminRoleCommand(action: "grant" | "revoke", argv: string[]) {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { reason: { type: "string" } },
  });
  const email = positionals[0];
  if (!email || positionals.length > 1) {
    console.error(`Usage: npm run admin:${action} -- EMAIL [--reason "why"]`);
    return 2;
  }
  const userId = findUserIdByEmail(email);
  if (userId === null) {
    console.error(`No account with the e-mail ${email}`);
    return 1;
  }
  const options = { reason: values.reason ?? null, source: "cli" };
  if (action === "grant") {
    const result = grantRole(userId, "admin", options);
    console.log(result === "granted" ? `${email} is now an admin` : `${email} is already an admin`);
  } else {
    const result = revokeRole(userId, "admin", { ...options, revokedBy: null });
    console.log(
      result === "revoked" ? `${email} is no longer an admin` : `${email} was not an admin`,
    );
  }
  return 0;
}

export function main(action: "grant" | "revoke") {
  let code = 1;
  try {
    code = runAdminRoleCommand(action, process.argv.slice(2));
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
  } finally {
    db.$client.close();
  }
  process.exitCode = code;
}
