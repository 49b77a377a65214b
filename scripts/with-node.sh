#!/usr/bin/env bash
# `bash scripts/with-node.sh <command> [args…]`: runs the command on the Node named in
# .node-version, fetched from the npm registry when the machine's own is
# another major (scripts/use-node.sh). package.json's development scripts
# (start, dev, tests, benches, seed) go through it; the image already has it.
set -euo pipefail
. "$(dirname "$0")/use-node.sh"
exec "$@"
