# Parley: one server process (web app, API and WebSocket) on embedded SQLite by default, or on
# PostgreSQL + Redis with DATABASE_URL and REDIS_URL (compose.yaml runs two behind nginx).
#
#   docker build -t parley .
#   docker run -p 3000:3000 -v parley-data:/data -e ADMIN_EMAIL=you@example.com parley
#
# Settings: environment variables (`docker run parley --help` lists them), or a .env file in
# /app. The data folder (SQLite, mail outbox, session secret) is the volume /data.

FROM node:24-slim AS build
WORKDIR /app
# Dependencies first: this layer is reused until a package file changes.
COPY package.json package-lock.json ./
COPY apps/server/package.json apps/server/
COPY apps/web/package.json apps/web/
COPY packages/protocol/package.json packages/protocol/
COPY packages/e2ee/package.json packages/e2ee/
COPY e2e/package.json e2e/
COPY bench/package.json bench/
RUN npm ci --no-audit --no-fund
COPY . .
# The web app, compressed (br and gzip beside each file); then only what the server needs.
RUN npm run build && npm prune --omit=dev && rm -rf apps/web/src e2e bench .ci

FROM node:24-slim
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build --chown=root:root /app /app
RUN mkdir -p /data && chown node:node /data
# Not root: the image's own unprivileged user; it may write only to /data.
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The V8 flags of apps/server/src/node-flags.ts (npm start, npm run cluster and the bench use them).
ENTRYPOINT ["node", "--max-semi-space-size=16", "--expose-gc", "apps/server/src/main.ts"]
