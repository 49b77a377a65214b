import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";

/**
 * Configuration is read once, at start, from the environment. Every name and
 * default here is documented in README.md; operators and tests rely on them.
 */
const portSchema = z.coerce
  .number({ invalid_type_error: "must be a whole number between 1 and 65535" })
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
    .string()
    .url("must be a full URL such as https://thoughtfully.example")
    .refine((value) => /^https?:\/\//.test(value), "must start with http:// or https://")
    .optional(),
  DATABASE_PATH: z.string().min(1).default("./data/app.db"),
  STORAGE_DIR: z.string().min(1).default("./data/uploads"),
  OUTBOX_DIR: z.string().min(1).default("./data/outbox"),
  SMTP_URL: optionalText.refine(
    (value) => value === undefined || /^smtps?:\/\/[^/]+/.test(value),
    "must look like smtp://user:pass@host:port or smtps://…",
  ),
  MAIL_FROM: z.string().min(3).default("Thoughtfully <no-reply@localhost>"),
  SUPPORT_EMAIL: z.string().email("must be an e-mail address").default("support@thoughtfully.app"),
  CHROME_EXTENSION_URL: z.string().url("must be a full URL").optional(),
  SESSION_SECRET: optionalText.refine(
    (value) => value === undefined || value.length >= 32,
    "must be at least 32 characters long",
  ),
  SCHEDULER: z.enum(["on", "off"], { message: 'must be "on" or "off"' }).default("on"),
  STRIPE_SECRET_KEY: optionalText,
  STRIPE_PRICE_ID: optionalText,
  STRIPE_WEBHOOK_SECRET: optionalText,
  /** Tests only: a fake Stripe API (http://127.0.0.1:PORT) the `stripe` client talks to. */
  STRIPE_API_BASE: z
    .string()
    .url("must be a full URL such as http://127.0.0.1:12111")
    .refine((value) => /^https?:\/\//.test(value), "must start with http:// or https://")
    .optional(),
  DKIM_DOMAIN: optionalText,
  DKIM_SELECTOR: optionalText,
  DKIM_PRIVATE_KEY: optionalText,
  OAUTH_PROVIDER_NAME: z.string().trim().min(1).default("OpenID"),
  OAUTH_CLIENT_ID: optionalText,
  OAUTH_CLIENT_SECRET: optionalText,
  OAUTH_AUTHORIZATION_URL: z.string().url("must be a full URL").optional(),
  OAUTH_TOKEN_URL: z.string().url("must be a full URL").optional(),
  OAUTH_USERINFO_URL: z.string().url("must be a full URL").optional(),
  OAUTH_SCOPES: z.string().default("openid email profile"),
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

export type Env = Omit<z.infer<typeof envSchema>, "APP_URL" | "SESSION_SECRET"> & {
  APP_URL: string;
  SESSION_SECRET: string;
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
  const appUrl = (values.APP_URL ?? `http://localhost:${values.PORT}`).replace(/\/+$/, "");
  // remix-serve always runs with NODE_ENV=production, even for `npm start` on a
  // laptop; an https APP_URL is what marks a real deployment.
  const isHttps = appUrl.startsWith("https://");
  if (isHttps && !values.SESSION_SECRET) {
    throw new ConfigError(
      "Invalid configuration: SESSION_SECRET is required when APP_URL is https (at least 32 characters)",
    );
  }
  return {
    ...values,
    APP_URL: appUrl,
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
