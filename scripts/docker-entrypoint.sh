#!/bin/sh
# Container entrypoint (see Dockerfile). Started as root, it gives the data
# volume to the unprivileged `node` user, then becomes that user and replaces
# itself with the command, so the server is the process that gets SIGTERM.
set -eu

DATA_DIR=/data

if [ "$(id -u)" = "0" ]; then
  mkdir -p "$DATA_DIR"
  # Only what node does not own yet (a new volume, a file restored as root):
  # cheap on every start, even with many uploads. LiteFS's own files stay root's.
  find "$DATA_DIR" -path "$DATA_DIR/litefs" -prune -o \
    \( ! -user node -o ! -group node \) -exec chown node:node {} +
  export HOME=/home/node
  # More than one machine (fly.replicas.toml): LiteFS mounts the database,
  # as root, and starts the server as `node` itself (litefs.yml, "exec").
  if [ -n "${LITEFS_DIR:-}" ]; then
    exec litefs mount -config /app/litefs.yml
  fi
  exec setpriv --reuid=node --regid=node --init-groups -- "$@"
fi

exec "$@"
