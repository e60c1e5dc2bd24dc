# syntax=docker/dockerfile:1
# assetql: one image for every role (`serve`, `serve --gateway`, `serve --subgraph <name>`,
# `migrate`, `users …`). docs/deploy.md shows how to run it; compose.yaml runs the distributed
# form on PostgreSQL. test/e2e/container.e2e.ts runs this image's start command, environment
# and read-only file system outside a container, and checks that every COPY source exists.

# --- build: compile TypeScript to dist/ (needs the dev dependencies: typescript) ---
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/ ./scripts/
COPY src/ ./src/
RUN node scripts/build.ts dist

# --- dependencies: production ones only, no install scripts ---
FROM node:24-bookworm-slim AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# --- runtime ---
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production \
    ASSETQL_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000 \
    DATA_DIR=/data
COPY --from=dependencies /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# Nothing under /app is writable: the process writes only to /data (the embedded database, when
# there is no DATABASE_URL) and /tmp; mount both as volumes with a read-only root file system.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data", "/tmp"]
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||4000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# --max-semi-space-size=16 as `npm start` passes it (src/cli/bin.ts says why).
ENTRYPOINT ["node", "--max-semi-space-size=16", "dist/cli/bin.js"]
CMD ["serve"]
