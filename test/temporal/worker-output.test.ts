// A user's worker bundles its workflows quietly: webpack's report (about 30 lines at INFO) only with
// SOEV_BUNDLE_VERBOSE set. The real worker program in a child process, with the SDK's default logger.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { temporalAddress, temporalNamespace } from "../support/temporal.js";

async function bundlingWorker(env: Record<string, string>): Promise<string> {
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", "test/fixtures/temporal/bundling-worker.ts"],
    { env: { ...process.env, TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_NAMESPACE: temporalNamespace(), ...env } },
  );
  return stdout + stderr;
}

it("prints no webpack report when it bundles, unless SOEV_BUNDLE_VERBOSE asks for it", async () => {
  const quiet = await bundlingWorker({ SOEV_BUNDLE_VERBOSE: "" });
  expect(quiet).toContain("worker created: INITIALIZED");
  expect(quiet).not.toMatch(/webpack|modules by path|Workflow bundle created/);
  const verbose = await bundlingWorker({ SOEV_BUNDLE_VERBOSE: "1" });
  expect(verbose).toMatch(/webpack [\d.]+ compiled successfully/);
  expect(verbose).toContain("Workflow bundle created");
}, 120_000);
