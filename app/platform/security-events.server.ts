import { securityEvents } from "#db/schema";
import { db } from "~/platform/db.server";
import { clientIp, userAgent } from "~/platform/request-info.server";

type SecurityEventInput = {
  eventType: (typeof securityEvents.$inferInsert)["eventType"];
  severity?: (typeof securityEvents.$inferInsert)["severity"];
  userId?: number | null;
  targetUserId?: number | null;
  sessionId?: string | null;
  responseStatus?: number;
  details?: Record<string, unknown>;
};

/** One row in `security_events`, with where the request came from. */
export function recordSecurityEvent(request: Request, event: SecurityEventInput) {
  const url = new URL(request.url);
  db.insert(securityEvents)
    .values({
      ...event,
      ipAddress: clientIp(request),
      userAgent: userAgent(request),
      endpoint: url.pathname,
      requestMethod: request.method,
    })
    .run();
}

/** One row in `security_events` for what an operator did from a shell (`npm run …`), not a request. */
export function recordOperatorSecurityEvent(event: SecurityEventInput & { command: string }) {
  const { command, ...rest } = event;
  db.insert(securityEvents)
    .values({ ...rest, endpoint: `cli:${command}` })
    .run();
}
