/**
 * Packs extension/ into extension/dist/thoughtfully-extension-<version>.zip,
 * ready to upload to the Chrome Web Store: manifest.json at the root, every
 * file the extension uses, nothing else (no dist/, no dot files).
 *
 *   npm run extension:zip
 */
import fs from "node:fs";
import path from "node:path";
import { type Zippable, zipSync } from "fflate";

const root = path.resolve(import.meta.dirname, "../extension");
const outDir = path.join(root, "dist");

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => !entry.name.startsWith(".") && entry.name !== "dist")
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? filesUnder(full) : [full];
    })
    .sort();
}

const manifest = JSON.parse(fs.readFileSync(path.join(root, "manifest.json"), "utf8")) as {
  version: string;
  manifest_version: number;
};
if (manifest.manifest_version !== 3) throw new Error("extension/manifest.json must be Manifest V3");

// A fixed time stamp, so the same files always give the same zip.
const mtime = new Date("2025-01-01T00:00:00Z");
const entries: Zippable = Object.fromEntries(
  filesUnder(root).map((file) => [
    path.relative(root, file).split(path.sep).join("/"),
    [new Uint8Array(fs.readFileSync(file)), { mtime }],
  ]),
);
fs.mkdirSync(outDir, { recursive: true });
const out = path.join(outDir, `thoughtfully-extension-${manifest.version}.zip`);
fs.writeFileSync(out, zipSync(entries, { level: 9 }));
console.log(`${path.relative(process.cwd(), out)}: ${Object.keys(entries).length} files`);
