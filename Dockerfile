# syntax=docker/dockerfile:1

# Thoughtfully: one Node process (build/server/index.js serving the Remix build) with
# its SQLite database, uploads and outbox on a volume mounted at /data; or, on
# several machines, the database mounted through LiteFS (litefs.yml) and
# uploads in an S3 bucket. See docs/deploy.md.

FROM node:24-bookworm-slim AS base
WORKDIR /app

# ---- build: all dependencies, the Remix build, then only production modules ----
FROM base AS build

# better-sqlite3 compiles from source when no prebuilt binary fits.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*

COPY package.json package-lock.json ./
# Install scripts run (better-sqlite3, sharp, esbuild: see "allowScripts").
RUN npm ci

COPY . .
RUN npm run build \
  && npm prune --omit=dev \
  && chmod +x scripts/docker-entrypoint.sh

# ---- runtime ----
FROM base

# LiteFS, for more than one machine (litefs.yml; unused on one machine): its
# binary, and FUSE to mount the database. Debian's ffmpeg transcodes videos
# (docs/decisions/0205-videos-transcoded-by-ffmpeg.md), each started through
# util-linux's setpriv so that it dies with the server (an essential package,
# already in the image; named so that it stays:
# docs/decisions/0237-media-work-bounded-and-children-die-with-the-server.md).
COPY --from=flyio/litefs:0.5 /usr/local/bin/litefs /usr/local/bin/litefs
RUN apt-get update \
  && apt-get install -y --no-install-recommends fuse3 ffmpeg util-linux \
  && rm -rf /var/lib/apt/lists/*

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATABASE_PATH=/data/app.db \
    STORAGE_DIR=/data/uploads \
    OUTBOX_DIR=/data/outbox

# Only what runs: the build (the Remix app, the server, the scheduler's thread
# and the operator's commands, all plain JavaScript: scripts/build-server.ts),
# production modules, static files, the migrations applied at start, the
# entrypoint, and the Node wrapper the operator's npm scripts go through (here it
# finds .node-version's Node already). No TypeScript sources:
# docs/decisions/0083-one-build.md, 0241-operator-commands-on-the-projects-node.md.
COPY --from=build /app/package.json /app/package-lock.json /app/.node-version ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/build ./build
COPY --from=build /app/public ./public
COPY --from=build /app/db/migrations ./db/migrations
COPY --from=build /app/scripts/docker-entrypoint.sh /app/scripts/with-node.sh /app/scripts/use-node.sh ./scripts/
COPY --from=build /app/litefs.yml ./litefs.yml

RUN mkdir -p /data && chown node:node /data

EXPOSE 8080

# Starts as root only to hand /data (a fresh volume is root's) to `node`, then
# drops to that user and execs the command.
ENTRYPOINT ["/app/scripts/docker-entrypoint.sh"]

# node directly, not npm: SIGTERM reaches the server, which finishes requests in
# flight, stops the scheduler and closes the database before it exits.
CMD ["node", "build/server/index.js"]
