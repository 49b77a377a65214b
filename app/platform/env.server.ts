import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { backupDirectory } from "#db/backup";
import { z } from "~/platform/zod";
import { SEND_FAULT_POINTS } from "./fault-points";
import { relayOfSmtpUrl, SMTP_RELAYS, type SmtpRelay } from "./smtp-relay";

/**
 * Configuration is read once, at start, from the environment. Every name and
 * default here is documented in README.md; operators and tests rely on them.
 */
const portSchema = z.coerce
  .number({ error: "must be a whole number between 1 and 65535" })
  .int("must be a whole number between 1 and 65535")
  .min(1, "must be a whole number between 1 and 65535")
  .max(65535, "must be a whole number between 1 and 65535");

const optionalText = z
  .string()
  .trim()
  .optional()
  .transform((value) => (value ? value : undefined));

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: portSchema.default(3000),
  APP_URL: z
    .url("must be a full URL such as https://thoughtfully.example")
    .refine((value) => /^https?:\/\//.test(value), "must start with http:// or https://")
    .optional(),
  DATABASE_PATH: z.string().min(1).default("./data/app.db"),
  STORAGE_DIR: z.string().min(1).default("./data/uploads"),
  OUTBOX_DIR: z.string().min(1).default("./data/outbox"),
  /**
   * Free space kept on the data volume for the database: no file is stored that would take the
   * volume below it, and /healthz fails once it is gone (app/platform/disk-reserve.server.ts).
   */
  DISK_RESERVE_MB: z.coerce
    .number({ error: "must be a whole number of megabytes (0 keeps none)" })
    .int("must be a whole number of megabytes (0 keeps none)")
    .min(0, "must be a whole number of megabytes (0 keeps none)")
    .default(256),
  /** Nightly backups, and what a restore reapplies (db/restore.ts). Default: `backups/` beside the database. */
  BACKUP_DIR: optionalText,
  /** LiteFS's mount (its `fuse.dir`): set, this machine is a replica while `.primary` there names another. */
  LITEFS_DIR: optionalText,
  /** Set: uploads go to this S3-compatible bucket instead of STORAGE_DIR. */
  S3_BUCKET: optionalText,
  S3_ENDPOINT: z
    .url("must be a full URL such as https://fly.storage.tigris.dev")
    .refine((value) => /^https?:\/\//.test(value), "must start with http:// or https://")
    .optional(),
  S3_REGION: z.string().trim().min(1).default("us-east-1"),
  S3_ACCESS_KEY_ID: optionalText,
  S3_SECRET_ACCESS_KEY: optionalText,
  S3_FORCE_PATH_STYLE: z
    .enum(["true", "false"], { error: 'must be "true" or "false"' })
    .default("false")
    .transform((value) => value === "true"),
  SMTP_URL: optionalText.refine(
    (value) => value === undefined || /^smtps?:\/\/[^/]+/.test(value),
    "must look like smtp://user:pass@host:port or smtps://…",
  ),
  /**
   * Whose metadata header each newsletter copy carries: postmark, mailgun, sendgrid or none.
   * Unset, it is recognised from SMTP_URL's host (docs/decisions/0184-one-relays-headers.md).
   */
  SMTP_RELAY: z
    .enum(SMTP_RELAYS, { message: `must be one of ${SMTP_RELAYS.join(", ")}` })
    .optional(),
  /**
   * SMTP connections each thread keeps to the relay, and so messages of a pass in flight: each
   * connection's message has its own window between its end of data and its durable mark
   * (docs/decisions/0247-one-acceptance-window-per-connection.md; per relay: docs/deploy.md).
   */
  SMTP_MAX_CONNECTIONS: z.coerce
    .number({ error: "must be a whole number between 1 and 64" })
    .int("must be a whole number between 1 and 64")
    .min(1, "must be a whole number between 1 and 64")
    .max(64, "must be a whole number between 1 and 64")
    .default(8),
  /** The relay's ceiling, in messages a second (SES's send rate): unset, none. */
  SMTP_MAX_MESSAGES_PER_SECOND: optionalText
    .refine((value) => value === undefined || Number(value) > 0, "must be a number above 0")
    .transform((value) => (value === undefined ? undefined : Number(value))),
  MAIL_FROM: z.string().min(3).default("Thoughtfully <no-reply@localhost>"),
  SUPPORT_EMAIL: z.email("must be an e-mail address").default("support@thoughtfully.app"),
  /**
   * A mailbox that receives mail and hands it to /webhooks/inbound-email: set, each newsletter
   * copy's return path is this address tagged with the copy (VERP), so bounces name their copy.
   */
  BOUNCE_ADDRESS: optionalText.refine(
    (value) => value === undefined || z.email().safeParse(value).success,
    "must be a bare e-mail address such as bounces@bounce.example.com",
  ),
  /** The relays' webhooks for bounces and complaints (docs/deploy.md); unset, that webhook answers 404. */
  POSTMARK_WEBHOOK_TOKEN: optionalText,
  MAILGUN_WEBHOOK_SIGNING_KEY: optionalText,
  SENDGRID_WEBHOOK_PUBLIC_KEY: optionalText,
  /** The SNS topic Amazon SES publishes bounces and complaints to; no other topic is accepted. */
  SES_SNS_TOPIC_ARN: optionalText,
  /**
   * Saving by e-mail (docs/decisions/0158-save-by-email.md): the domain whose mail is each
   * folder's private address. Unset, the feature is hidden and no mail is taken in.
   */
  INBOUND_EMAIL_DOMAIN: optionalText
    .refine(
      (value) =>
        value === undefined || /^(?=.{1,253}$)([a-z0-9-]{1,63}\.)+[a-z0-9-]{2,63}$/i.test(value),
      "must be a domain name such as in.thoughtfully.example",
    )
    .transform((value) => value?.toLowerCase()),
  /** The shared secret a mail provider's inbound webhook sends as its basic-auth password; unset, that webhook answers 404. */
  INBOUND_EMAIL_WEBHOOK_TOKEN: optionalText.refine(
    (value) => value === undefined || value.length >= 24,
    "must be at least 24 characters long",
  ),
  /**
   * The public key of a SendGrid Inbound Parse signing security policy (base64, as SendGrid shows
   * it); set, every post to the save-by-email webhook must carry its valid signature.
   */
  SENDGRID_INBOUND_PARSE_PUBLIC_KEY: optionalText,
  /** Set: the server also receives mail for INBOUND_EMAIL_DOMAIN over SMTP on this port. */
  INBOUND_SMTP_PORT: portSchema.optional(),
  INBOUND_SMTP_HOST: z.string().trim().min(1).default("127.0.0.1"),
  /** PEM files: set both and the SMTP receiver offers STARTTLS. */
  INBOUND_SMTP_TLS_KEY: optionalText,
  INBOUND_SMTP_TLS_CERT: optionalText,
  /**
   * "true": each SMTP connection starts with a PROXY protocol v1 header naming
   * the sender's address, as Fly's proxy_proto handler writes it
   * (docs/decisions/0171-smtp-on-fly-one-machine-dedicated-ipv4-proxy-protocol.md).
   */
  INBOUND_SMTP_PROXY_PROTOCOL: z
    .enum(["true", "false"], { error: 'must be "true" or "false"' })
    .default("false")
    .transform((value) => value === "true"),
  /** DNS servers for checking incoming mail's SPF, DKIM and DMARC (comma-separated, host or host:port); unset, the system's. */
  DNS_SERVERS: z
    .string()
    .default("")
    .transform((value) =>
      value
        .split(",")
        .map((server) => server.trim())
        .filter(Boolean),
    ),
  CHROME_EXTENSION_URL: z.url("must be a full URL").optional(),
  SESSION_SECRET: optionalText.refine(
    (value) => value === undefined || value.length >= 32,
    "must be at least 32 characters long",
  ),
  SCHEDULER: z.enum(["on", "off"], { error: 'must be "on" or "off"' }).default("on"),
  STRIPE_SECRET_KEY: optionalText,
  STRIPE_PRICE_ID: optionalText,
  STRIPE_WEBHOOK_SECRET: optionalText,
  /** Tests only: a fake Stripe API (http://127.0.0.1:PORT) the `stripe` client talks to. */
  STRIPE_API_BASE: z
    .url("must be a full URL such as http://127.0.0.1:12111")
    .refine((value) => /^https?:\/\//.test(value), "must start with http:// or https://")
    .optional(),
  DKIM_DOMAIN: optionalText,
  DKIM_SELECTOR: optionalText,
  DKIM_PRIVATE_KEY: optionalText,
  OAUTH_PROVIDER_NAME: z.string().trim().min(1).default("OpenID"),
  OAUTH_CLIENT_ID: optionalText,
  OAUTH_CLIENT_SECRET: optionalText,
  OAUTH_AUTHORIZATION_URL: z.url("must be a full URL").optional(),
  OAUTH_TOKEN_URL: z.url("must be a full URL").optional(),
  OAUTH_USERINFO_URL: z.url("must be a full URL").optional(),
  OAUTH_SCOPES: z.string().default("openid email profile"),
  /** Tests only (NODE_ENV=test): `point` or `point#n`, where a send kills its own process (app/platform/fault-points.ts). */
  THOUGHTFULLY_FAULT_POINT: optionalText
    .refine(
      (value) =>
        value === undefined ||
        new RegExp(`^(${SEND_FAULT_POINTS.join("|")})(#[1-9][0-9]*)?$`).test(value),
      `must be one of ${SEND_FAULT_POINTS.join(", ")}, optionally followed by #n`,
    )
    .transform((value) => {
      if (!value) return undefined;
      const [point, hit] = value.split("#");
      return { point: point as (typeof SEND_FAULT_POINTS)[number], hit: Number(hit ?? 1) };
    }),
  /** "off": saving a link asks for no preview fetch (unit tests, which must not reach the network). */
  LINK_PREVIEWS: z.enum(["on", "off"], { error: 'must be "on" or "off"' }).default("on"),
  /**
   * Tests only: link previews may fetch from 127.0.0.1 and ::1 (a page server
   * the tests start), on any port. Refused with NODE_ENV=production or an https APP_URL.
   */
  LINK_PREVIEW_ALLOW_LOOPBACK: z
    .enum(["true", "false"], { error: 'must be "true" or "false"' })
    .default("false")
    .transform((value) => value === "true"),
  /** Addresses of reverse proxies whose X-Forwarded-For is believed (comma-separated). */
  TRUSTED_PROXY: z
    .string()
    .default("")
    .transform((value) =>
      value
        .split(",")
        .map((address) => address.trim())
        .filter(Boolean),
    ),
  /** Set by Fly.io on its machines: Fly-Client-IP is then the client's address. */
  FLY_APP_NAME: optionalText,
});

export type Env = Omit<
  z.infer<typeof envSchema>,
  "APP_URL" | "SESSION_SECRET" | "BACKUP_DIR" | "SMTP_RELAY"
> & {
  APP_URL: string;
  BACKUP_DIR: string;
  SESSION_SECRET: string;
  /** SMTP_RELAY as set, or else recognised from SMTP_URL's host. */
  SMTP_RELAY: SmtpRelay;
  /** A public deployment: secure cookies, HSTS, a required SESSION_SECRET. */
  isHttps: boolean;
};

export class ConfigError extends Error {}

/** One line per problem, each naming the variable, so a bad deploy says exactly what to fix. */
function describeIssues(error: z.ZodError, source: Record<string, string | undefined>) {
  return error.issues
    .map((issue) => {
      const name = String(issue.path[0]);
      const given = source[name];
      return `${name} ${issue.message}${given === undefined ? "" : ` (got "${given}")`}`;
    })
    .join("; ");
}

/**
 * Outside production the session secret is generated once and kept beside the
 * database, so `npm start` needs no setup and sessions survive restarts.
 */
function localSessionSecret(databasePath: string) {
  const file = path.join(path.dirname(path.resolve(databasePath)), ".session-secret");
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch {
    const secret = crypto.randomBytes(32).toString("hex");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, secret, { mode: 0o600 });
    return secret;
  }
}

export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    throw new ConfigError(`Invalid configuration: ${describeIssues(result.error, source)}`);
  }
  const values = result.data;
  if (Boolean(values.S3_ACCESS_KEY_ID) !== Boolean(values.S3_SECRET_ACCESS_KEY)) {
    throw new ConfigError(
      "Invalid configuration: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together (set both, or neither to use the AWS_* credentials)",
    );
  }
  if (Boolean(values.INBOUND_SMTP_TLS_KEY) !== Boolean(values.INBOUND_SMTP_TLS_CERT)) {
    throw new ConfigError(
      "Invalid configuration: INBOUND_SMTP_TLS_KEY and INBOUND_SMTP_TLS_CERT go together (set both, or neither for no STARTTLS)",
    );
  }
  if (
    !values.INBOUND_EMAIL_DOMAIN &&
    (values.INBOUND_SMTP_PORT || values.INBOUND_EMAIL_WEBHOOK_TOKEN)
  ) {
    throw new ConfigError(
      "Invalid configuration: INBOUND_SMTP_PORT and INBOUND_EMAIL_WEBHOOK_TOKEN need INBOUND_EMAIL_DOMAIN (the domain folders' addresses are on)",
    );
  }
  const appUrl = (values.APP_URL ?? `http://localhost:${values.PORT}`).replace(/\/+$/, "");
  // remix-serve always runs with NODE_ENV=production, even for `npm start` on a
  // laptop; an https APP_URL is what marks a real deployment.
  const isHttps = appUrl.startsWith("https://");
  if (isHttps && !values.SESSION_SECRET) {
    throw new ConfigError(
      "Invalid configuration: SESSION_SECRET is required when APP_URL is https (at least 32 characters)",
    );
  }
  if (values.THOUGHTFULLY_FAULT_POINT && values.NODE_ENV !== "test") {
    throw new ConfigError(
      "Invalid configuration: THOUGHTFULLY_FAULT_POINT is for tests only (NODE_ENV=test)",
    );
  }
  // Every deployment runs with NODE_ENV=production (the Dockerfile sets it), whatever
  // its APP_URL says, and a public one is https: either refuses the switch
  // (docs/decisions/0103-loopback-previews-never-in-production.md).
  if (values.LINK_PREVIEW_ALLOW_LOOPBACK && (values.NODE_ENV === "production" || isHttps)) {
    throw new ConfigError(
      "Invalid configuration: LINK_PREVIEW_ALLOW_LOOPBACK is for tests only (refused with NODE_ENV=production or an https APP_URL)",
    );
  }
  return {
    ...values,
    APP_URL: appUrl,
    BACKUP_DIR: values.BACKUP_DIR ?? backupDirectory(values.DATABASE_PATH),
    SMTP_RELAY: values.SMTP_RELAY ?? relayOfSmtpUrl(values.SMTP_URL),
    SESSION_SECRET: values.SESSION_SECRET ?? localSessionSecret(values.DATABASE_PATH),
    isHttps,
  };
}

function loadEnv(): Env {
  try {
    return parseEnv(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}

export const env = loadEnv();
