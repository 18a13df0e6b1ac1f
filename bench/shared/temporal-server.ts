/**
 * The dev server every Temporal bench runs on: the tests' server (test/setup/global.ts) with one setting raised.
 */
import type { TestWorkflowEnvironment } from "@temporalio/testing";
import { startTemporal, temporalCliPath } from "../../test/setup/global.js";

/**
 * The dev server has one history shard, whose transfer queue (which hands each new workflow or activity task to
 * matching) reads at most 20 times a second by default: turns run back to back then wait about 40 ms for every
 * task, most of a turn, where a cluster spreads its workflows over many shards. Raised, so what is measured is the
 * systems' own cost.
 */
export const TRANSFER_POLLS = "history.transferProcessorMaxPollRPS=1000";

/** Start the benches' dev server; `dynamicConfig` adds server settings (`name=value`). */
export function startBenchTemporal(dynamicConfig: readonly string[] = []): Promise<TestWorkflowEnvironment> {
  return startTemporal(temporalCliPath(), [TRANSFER_POLLS, ...dynamicConfig]);
}
