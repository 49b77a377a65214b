#!/usr/bin/env bash
# `bash bench/node-versions.sh`: the send, dashboard and cold-start benches on
# Node 20 and then on .node-version's Node, in one run, each on one build of
# the app; every bench measures its own baseline on the Node it runs on, so
# each line's ratio compares like with like. Prints each bench's output under
# a heading naming the Node; docs/performance.md ("Node 24 beside Node 20")
# keeps the figures. OLD_NODE_VERSION picks the older Node (default 20.20.2).
set -euo pipefail
cd "$(dirname "$0")/.."

versions=("${OLD_NODE_VERSION:-20.20.2}" "$(tr -d '[:space:]' < .node-version)")

(. scripts/use-node.sh && npm run build >/dev/null)
for version in "${versions[@]}"; do
  (
    export NODE_VERSION="$version"
    . scripts/use-node.sh
    for bench in send dashboard cold-start; do
      printf '\n===== Node %s: bench:%s =====\n' "$(node -v)" "$bench"
      npx tsx "bench/$bench.ts"
    done
  )
done
# Leave better-sqlite3 built for .node-version's Node again.
. scripts/use-node.sh >/dev/null
