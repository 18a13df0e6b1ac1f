import { defineConfig } from "vitest/config";

/**
 * Three projects. `unit` needs no service and no child process (`npm run test:unit`, under a minute);
 * `processes` runs child processes and whole-project tools, no service (`npm run test:processes`). `services` needs the
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
  "test/adapters/live/postgres*.test.ts",
  "test/deploy/package*.test.ts",
  "examples/demo/**/*.test.ts",
];
/**
 * Tests that run child processes or whole-project tools (the CLIs, MCP servers, tsc over the docs, madge): no
 * service, but seconds each, so the unit project stays fast.
 */
const PROCESSES = [
  "test/toolkit/prompts/adversarial.test.ts",
  "test/toolkit/prompts/cli.test.ts",
  "test/docs/snippets.test.ts",
  "test/cli/**/*.test.ts",
  "test/lint/import-cycles.test.ts",
  "test/adapters/mcp/**/*.test.ts",
];
const ALL = ["test/**/*.test.ts", "examples/**/*.test.ts"];

const shared = {
  hookTimeout: 120_000,
  pool: "forks" as const,
  fileParallelism: true,
  maxWorkers: 2,
};

export default defineConfig({
  test: {
    projects: [
      // A unit test has no service to wait for: 10 s is far beyond any of them, and catches one that hangs.
      {
        test: { ...shared, name: "unit", include: ALL, exclude: [...SERVICES, ...PROCESSES], testTimeout: 10_000 },
      },
      { test: { ...shared, name: "processes", include: PROCESSES, testTimeout: 60_000 } },
      {
        test: {
          ...shared,
          name: "services",
          // Loading the Temporal worker's native runtime costs each file half a second: only here is it used.
          setupFiles: ["test/setup/quiet-logs.ts"],
          include: SERVICES,
          globalSetup: ["test/setup/global.ts"],
          testTimeout: 60_000,
        },
      },
    ],
  },
});
