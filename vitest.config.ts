import { defineConfig } from "vitest/config";

/**
 * Two projects. `unit` needs no service and runs in seconds (`npm run test:unit`). `services` needs the
 * run's one Temporal dev server and PostgreSQL (test/setup/global.ts: the machines have 2 cores), real
 * HTTP servers and the browser. A test that needs a service belongs to a folder or file listed here.
 */
const SERVICES = [
  "test/temporal/**/*.test.ts",
  "test/app/**/*.test.ts",
  "test/faults/**/*.test.ts",
  "test/adapters/openai/**/*.test.ts",
  "test/adapters/ai-sdk/**/*.test.ts",
  "test/adapters/stores/postgres*.test.ts",
  "test/deploy/package*.test.ts",
  "examples/demo/**/*.test.ts",
];
const ALL = ["test/**/*.test.ts", "examples/**/*.test.ts"];

const shared = {
  setupFiles: ["test/setup/quiet-logs.ts"],
  hookTimeout: 120_000,
  pool: "forks" as const,
  fileParallelism: true,
  maxWorkers: 2,
};

export default defineConfig({
  test: {
    projects: [
      // A unit test has no service to wait for: 10 s is far beyond any of them, and catches one that hangs.
      { test: { ...shared, name: "unit", include: ALL, exclude: SERVICES, testTimeout: 10_000 } },
      {
        test: {
          ...shared,
          name: "services",
          include: SERVICES,
          globalSetup: ["test/setup/global.ts"],
          testTimeout: 60_000,
        },
      },
    ],
  },
});
