/**
 * Draws the app's envelope mark (public/favicon.svg, on a rounded square so it
 * reads on any toolbar) into the PNG icons the Chrome extension and the web app
 * manifest need. The output is committed; run again after changing the mark:
 *
 *   npx tsx scripts/extension-icons.ts
 */
import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";

const root = path.resolve(import.meta.dirname, "..");

const svg = Buffer.from(
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
  <rect width="32" height="32" rx="7" fill="#fbf8f3"/>
  <rect x="3" y="7" width="26" height="19" rx="3" fill="#30503b"/>
  <path d="M4 9l12 9 12-9" fill="none" stroke="#fbf8f3" stroke-width="2" stroke-linejoin="round"/>
  <circle cx="25" cy="8" r="5" fill="#fbbf24"/>
</svg>`,
);

const targets = [
  ...[16, 32, 48, 128].map((size) => ({ size, dir: "extension/icons" })),
  ...[192, 512].map((size) => ({ size, dir: "public/icons" })),
];

for (const { size, dir } of targets) {
  const file = path.join(root, dir, `icon-${size}.png`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  await sharp(svg, { density: Math.ceil((72 * size) / 32) })
    .resize(size, size)
    .png({ compressionLevel: 9 })
    .toFile(file);
  console.log(`${path.relative(root, file)} (${size}×${size})`);
}
