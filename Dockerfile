# The soev-agents worker image: the example catalog by default (dist/worker.js), configured from the
# environment: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_* (or a profile of
# TEMPORAL_CONFIG_FILE), TEMPORAL_TASK_QUEUE, DATABASE_URL (else a SQLite file in /app/.data).

# 1. Build: every dependency, then the TypeScript compiled to dist/.
FROM node:24-bookworm AS build
WORKDIR /app
# The lock file first, so a change of code does not reinstall the modules.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# 2. Production dependencies only. The full image has the compilers better-sqlite3 falls back to when no
# prebuilt binary fits.
FROM node:24-bookworm AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

# 3. Run: the built JavaScript and the production modules, as the unprivileged user "node".
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production SOEV_DATA_DIR=/app/.data
WORKDIR /app
COPY --from=dependencies /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
# node itself is PID 1: SIGTERM reaches the worker, which stops polling and lets running activities finish.
CMD ["node", "dist/worker.js"]
