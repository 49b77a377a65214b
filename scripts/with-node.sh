#!/usr/bin/env bash
# `bash scripts/with-node.sh <command> [args…]`: runs the command on the Node named in
# .node-version, fetched from the npm registry when the machine's own is
# another major (scripts/use-node.sh). Every package.json script that runs Node goes
# through it, the operator's commands too (tests/repository/npm-scripts-node.test.ts); in the
# image, whose Node is already .node-version's, it only checks that and runs the command
# (docs/decisions/0241-operator-commands-on-the-projects-node.md).
set -euo pipefail
. "$(dirname "$0")/use-node.sh"
exec "$@"
