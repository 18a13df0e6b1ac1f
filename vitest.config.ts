import { defineConfig } from "vitest/config";

// One Temporal dev server and one PostgreSQL schema for the whole run (test/setup/global.ts): the machines have 2 cores.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "examples/**/*.test.ts"],
    globalSetup: ["test/setup/global.ts"],
    setupFiles: ["test/setup/quiet-logs.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    fileParallelism: true,
    maxWorkers: 2,
  },
});
