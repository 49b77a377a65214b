import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/**
 * A self-signed certificate for `hostName`, made by openssl: its key and
 * certificate as PEM text and as files in `dir`.
 */
export function selfSignedCertificate(hostName: string, dir: string) {
  const keyFile = path.join(dir, "key.pem");
  const certFile = path.join(dir, "cert.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      `/CN=${hostName}`,
      "-addext",
      `subjectAltName=DNS:${hostName}`,
      "-keyout",
      keyFile,
      "-out",
      certFile,
    ],
    { stdio: "ignore" },
  );
  return {
    keyFile,
    certFile,
    key: fs.readFileSync(keyFile, "utf8"),
    cert: fs.readFileSync(certFile, "utf8"),
  };
}
