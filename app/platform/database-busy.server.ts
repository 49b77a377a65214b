import { data, type ServerBuild } from "@remix-run/node";
import { DATABASE_BUSY, type DatabaseBusyFailure } from "./database-busy";
import { REQUEST_LOCK_WAIT_MS } from "./db.server";
import { isDatabaseBusy } from "./errors.server";
import { keptFields } from "./kept-fields.server";
import { requestContext } from "./request-context.server";

/**
 * A busy database answered in one way, for every route: a request whose write
 * met the write lock held by another connection (the scheduler's thread, `npm
 * run send:due`, an operator's `sqlite3`) past its short wait
 * (REQUEST_LOCK_WAIT_MS) is answered 503 with Retry-After, a page keeping what
 * was typed, never a 500 (docs/decisions/0246-a-busy-database-is-a-503-quickly.md).
 * The JSON API answers it itself, in its own error shape (app/modules/api/api.server.ts).
 */
export const DATABASE_BUSY_RETRY_AFTER_SECONDS = 5;

/** Called once a posted form's CSRF token checked out: the busy answer offers it again. */
export function keepSubmittedForm(formData: FormData | null, token: string | null) {
  const context = requestContext();
  if (context) context.submitted = { formData, token };
}

const RETRY_HEADERS = {
  "Retry-After": String(DATABASE_BUSY_RETRY_AFTER_SECONDS),
  "Cache-Control": "no-store",
};

/**
 * A page route's answer is the busy page (app/root.tsx's boundary) with the
 * form's fields as typed; a resource route's (a webhook, a file) a plain 503.
 */
function busyAnswer(request: Request, page: boolean) {
  if (!page) {
    return new Response(DATABASE_BUSY.title, {
      status: 503,
      headers: { "Content-Type": "text/plain; charset=utf-8", ...RETRY_HEADERS },
    });
  }
  const context = requestContext();
  if (context) context.databaseBusy = true;
  const url = new URL(request.url);
  const submitted = request.method === "GET" ? undefined : requestContext()?.submitted;
  const failure: DatabaseBusyFailure = {
    kind: "database-busy",
    fields: keptFields(submitted?.formData ?? null),
    token: submitted?.token ?? null,
    action: `${url.pathname}${url.search}`,
  };
  return data(failure, { status: 503 });
}

/**
 * A page's headers come from its routes' `headers` exports, which a thrown
 * answer's do not reach: the document (app/entry.server.tsx) adds Retry-After
 * for a request answered busy.
 */
export function addRetryAfterWhenBusy(headers: Headers) {
  if (!requestContext()?.databaseBusy) return;
  for (const [name, value] of Object.entries(RETRY_HEADERS)) headers.set(name, value);
}

type Handler = (args: { request: Request }) => unknown;

function answeringBusy(handler: Handler, page: boolean, routeId: string): Handler {
  return async (args) => {
    try {
      return await handler(args);
    } catch (error) {
      if (!isDatabaseBusy(error)) throw error;
      // The route's id, not its address: an address may carry a secret
      // (docs/decisions/0111-secret-paths-never-logged.md).
      console.error(
        `[database] busy past ${REQUEST_LOCK_WAIT_MS} ms: ${args.request.method} ${routeId} answered 503`,
      );
      throw busyAnswer(args.request, page);
    }
  };
}

/** The build with every route's loader and action answering a busy database (server/index.ts). */
export function answeringDatabaseBusy(build: ServerBuild): ServerBuild {
  const routes = Object.fromEntries(
    Object.entries(build.routes).map(([id, route]) => {
      const { loader, action } = route.module;
      const page = route.module.default !== undefined;
      const module = {
        ...route.module,
        ...(loader ? { loader: answeringBusy(loader as Handler, page, id) } : {}),
        ...(action ? { action: answeringBusy(action as Handler, page, id) } : {}),
      };
      return [id, { ...route, module }];
    }),
  );
  return { ...build, routes } as ServerBuild;
}
