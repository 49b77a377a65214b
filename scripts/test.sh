#!/usr/bin/env bash
# `npm test`: everything, in the order that fails fastest.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n=== %s ===\n' "$1"; }

step "System packages (Chromium, SpamAssassin)"
bash scripts/ensure-system-packages.sh

step "Types"
npx tsc --noEmit

step "Lint and format"
npx biome check .

step "Build"
npx remix build

step "Unit and integration tests"
npx vitest run

step "Browser tests"
npx playwright test
