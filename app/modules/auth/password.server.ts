import crypto from "node:crypto";
import { promisify } from "node:util";

const scrypt = promisify(crypto.scrypt) as (
  password: crypto.BinaryLike,
  salt: crypto.BinaryLike,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

/**
 * Cost settings for new hashes: OWASP's scrypt guidance (N=2^17, r=8, p=1, or
 * an equal cost with less memory) in its N=2^14, r=8, p=5 form, 16 MiB a hash
 * on a 512 MB machine. Stored hashes carry their own settings; an older one
 * is replaced at its owner's next successful log-in (`needsRehash`).
 */
const COST = { N: 16384, r: 8, p: 5 } as const;
const KEY_LENGTH = 64;
const SALT_LENGTH = 16;

/** Bounds for parameters read back from storage, so a bad value cannot exhaust memory. */
const MAX_N = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;
const MAX_MEMORY = 64 * 1024 * 1024;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Enough memory for scrypt's 128·N·r bytes plus headroom (Node's default cap is 32 MiB). */
const maxmem = (N: number, r: number) => 128 * N * r * 2;

/**
 * Hashes a password as `scrypt$N$r$p$saltBase64$hashBase64`: the parameters
 * travel with the hash, so a stored value can be verified on its own.
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(SALT_LENGTH);
  const { N, r, p } = COST;
  const hash = await scrypt(password, salt, KEY_LENGTH, {
    N,
    r,
    p,
    maxmem: maxmem(N, r),
  });
  return ["scrypt", N, r, p, salt.toString("base64"), hash.toString("base64")].join("$");
}

function parseStored(stored: string) {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return null;
  const [, nText, rText, pText, saltText, hashText] = parts as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (![nText, rText, pText].every((value) => /^[1-9]\d{0,7}$/.test(value))) return null;
  const N = Number(nText);
  const r = Number(rText);
  const p = Number(pText);
  // N must be a power of two greater than 1.
  if (N < 2 || N > MAX_N || (N & (N - 1)) !== 0 || r > MAX_R || p > MAX_P) return null;
  if (128 * N * r > MAX_MEMORY) return null;
  if (!BASE64.test(saltText) || !BASE64.test(hashText)) return null;
  const salt = Buffer.from(saltText, "base64");
  const hash = Buffer.from(hashText, "base64");
  if (salt.length === 0 || hash.length < 16) return null;
  return { N, r, p, salt, hash };
}

/** True when the password matches the stored hash; false for a wrong password or a malformed value. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseStored(stored);
  if (!parsed) return false;
  const { N, r, p, salt, hash } = parsed;
  let candidate: Buffer;
  try {
    candidate = await scrypt(password, salt, hash.length, {
      N,
      r,
      p,
      maxmem: maxmem(N, r),
    });
  } catch {
    return false;
  }
  return crypto.timingSafeEqual(candidate, hash);
}

/** A stored hash made with weaker settings than today's (or unreadable): hash the password again. */
export function needsRehash(stored: string) {
  const parsed = parseStored(stored);
  return !parsed || parsed.N < COST.N || parsed.r < COST.r || parsed.p < COST.p;
}
