#!/usr/bin/env bash
# `npm test`: everything, in the order that fails fastest.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n=== %s ===\n' "$1"; }

step "Node (.node-version)"
# Every step below runs on production's Node, fetched when this machine's is older.
. scripts/use-node.sh
echo "Node $(node -v)"

step "System packages (Chromium, SpamAssassin, ffmpeg)"
bash scripts/ensure-system-packages.sh

# The Dockerfile installs with `npm ci`, which refuses a lock file that is out
# of step with package.json (the README's `npm install` would quietly fix it).
step "Lock file (npm ci accepts it)"
npm ci --dry-run --no-audit --no-fund >/dev/null

step "Types"
npx tsc --noEmit

step "Lint and format"
npx biome check .

step "Build"
npm run build

# The Dockerfile's steps after the base image (build, prune, the runtime
# stage's files only, its command), without Docker: scripts/docker-steps.ts.
step "Image steps (the Dockerfile without Docker)"
npx tsx scripts/docker-steps.ts

step "Unit and integration tests"
npx vitest run

step "Browser tests"
npx playwright test
