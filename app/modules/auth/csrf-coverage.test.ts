import fs from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";

/**
 * Every route that accepts a POST checks the CSRF token. The only routes
 * allowed to skip it are listed here, each for a reason outside our control:
 * the one-click unsubscribe of RFC 8058 (posted by mail clients), mail
 * handed over from our mailbox (the subject's signed token is the proof) and
 * the Stripe webhook and the mail relays' webhooks (signed by them instead), the JSON API (a bearer
 * token in the Authorization header, which no other site can make a browser send), and the
 * phone's share target (docs/decisions/0196-share-target-takes-files.md).
 */
const EXEMPT_ROUTES: Record<string, string> = {
  "add+/share.ts":
    "the phone's share sheet posts from the OS without our token; it only keeps a draft, and the Save tap on our page (with its token) makes the item",
  "api+/v1.$.ts":
    "the JSON API reads only the Authorization header's token, never the session cookie",
  "api+/v1.folders.$folderId.upload.ts":
    "the JSON API's upload (its own route for a clip's body limit) reads only the Authorization header's token",
  "unsubscribe.tsx":
    "RFC 8058 one-click: mail clients post without our token; the signed link is the proof",
  "webhooks+/$relay.ts":
    "each relay signs what it posts (SNS with Amazon's certificate, Mailgun HMAC, SendGrid ECDSA, Postmark's basic-auth password); the signature is the proof",
  "webhooks+/inbound-email.ts":
    "mail to our address comes from mail servers; the signed token in the subject is the proof",
  "webhooks+/save-by-email.(mime).ts":
    "the mail provider sends the webhook's basic-auth password, and each message must pass DMARC",
  "webhooks+/stripe.ts": "Stripe signs its webhook; the signature is the proof",
};

function routeFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return routeFiles(full);
    return /\.(ts|tsx)$/.test(entry.name) && !entry.name.includes(".test.") ? [full] : [];
  });
}

/**
 * A route whose action is another route module's, with other arguments
 * (`export const action = (args) => addContent.action(…)` over
 * `import * as addContent from "./…"`), is checked by that module's source.
 */
function actionSource(file: string): string {
  const source = fs.readFileSync(file, "utf8");
  const delegated = /export\s+const\s+action\s*=[^;]*?\b(\w+)\.action\(/.exec(source)?.[1];
  const from = delegated
    ? new RegExp(`import \\* as ${delegated} from "(\\./[^"]+)"`).exec(source)?.[1]
    : undefined;
  if (!from) return source;
  const target = [".tsx", ".ts"]
    .map((extension) => path.resolve(path.dirname(file), `${from}${extension}`))
    .find((candidate) => fs.existsSync(candidate));
  return target ? actionSource(target) : source;
}

const routesDir = path.resolve("app/routes");
const withActions = routeFiles(routesDir)
  .map((file) => ({ route: path.relative(routesDir, file), source: actionSource(file) }))
  .filter(({ source }) =>
    /export\s+(async\s+)?function\s+action|export\s+const\s+action/.test(source),
  );

test("there are routes with actions to check", () => {
  expect(withActions.length).toBeGreaterThan(5);
});

test.each(withActions.map(({ route, source }) => [route, source]))(
  "%s checks the CSRF token",
  (route, source) => {
    if (route in EXEMPT_ROUTES) {
      expect(source).not.toMatch(/readProtectedForm|validateCsrf/);
      return;
    }
    expect(source).toMatch(/readProtectedForm\(|validateCsrf\(/);
  },
);

test("the exemptions are exactly the ones documented", () => {
  expect(Object.keys(EXEMPT_ROUTES).sort()).toEqual([
    "add+/share.ts",
    "api+/v1.$.ts",
    "api+/v1.folders.$folderId.upload.ts",
    "unsubscribe.tsx",
    "webhooks+/$relay.ts",
    "webhooks+/inbound-email.ts",
    "webhooks+/save-by-email.(mime).ts",
    "webhooks+/stripe.ts",
  ]);
});

/**
 * A route takes posts from other sites' pages only by declaring it
 * (`export const crossSitePosts`, docs/decisions/0239-one-cross-site-gate.md),
 * and only one whose authority is its own proof: an exempt route above. The
 * share target is exempt but not among them: the server's gate refuses
 * another site's share.
 */
test("the routes that take cross-site posts are exactly these, each exempt from the token", () => {
  const declaring = routeFiles(routesDir)
    .filter((file) => /export\s+const\s+crossSitePosts\b/.test(fs.readFileSync(file, "utf8")))
    .map((file) => path.relative(routesDir, file))
    .sort();
  expect(declaring).toEqual([
    "api+/v1.$.ts",
    "api+/v1.folders.$folderId.upload.ts",
    "unsubscribe.tsx",
    "webhooks+/$relay.ts",
    "webhooks+/inbound-email.ts",
    "webhooks+/save-by-email.(mime).ts",
    "webhooks+/stripe.ts",
  ]);
  for (const route of declaring) expect(EXEMPT_ROUTES).toHaveProperty([route]);
});
