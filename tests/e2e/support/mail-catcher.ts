import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { SMTPServer } from "smtp-server";

/**
 * A real SMTP server on loopback for the browser tests: the app sends through
 * it exactly as it would through a provider, and every message lands as an
 * .eml file that the tests read back with mailparser.
 */
export async function startMailCatcher(directory: string): Promise<number> {
  fs.mkdirSync(directory, { recursive: true });
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const name = `${Date.now()}-${crypto.randomBytes(4).toString("hex")}.eml`;
        const temporary = path.join(directory, `${name}.tmp`);
        fs.writeFileSync(temporary, Buffer.concat(chunks));
        fs.renameSync(temporary, path.join(directory, name));
        callback();
      });
    },
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.server.address();
      server.server.unref();
      resolve(typeof address === "object" && address ? address.port : 0);
    });
  });
}
