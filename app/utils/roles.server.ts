import { and, eq } from "drizzle-orm";
import { db } from "#db/client.server";
import { userRoles } from "#db/schema";

export function isAdmin(userId: number) {
  const row = db
    .select({ id: userRoles.id })
    .from(userRoles)
    .where(
      and(eq(userRoles.userId, userId), eq(userRoles.role, "admin"), eq(userRoles.isActive, true)),
    )
    .get();
  return Boolean(row);
}
