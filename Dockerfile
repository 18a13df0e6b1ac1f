# The soev-agents worker: the example catalog by default (worker.ts), configured from the environment:
# TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE, DATABASE_URL (else a SQLite file in /app/.data).
FROM node:20-bookworm

WORKDIR /app
# The lock file first, so a change of code does not reinstall the modules. The full image has the
# compilers better-sqlite3 falls back to when no prebuilt binary fits.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .

ENV SOEV_DATA_DIR=/app/.data
# node itself, not npx, is PID 1's child: SIGTERM reaches the worker, which drains and stops.
CMD ["node", "--import", "tsx", "worker.ts"]
