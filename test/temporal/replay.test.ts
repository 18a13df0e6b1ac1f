// Versioning: histories recorded from real runs replay on the current workflow code, so a change that
// breaks determinism fails here. Re-record them with: SOEV_RECORD_HISTORIES=1 npx vitest run test/temporal
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker, bundleWorkflowCode } from "@temporalio/worker";
import { DeterminismViolationError } from "@temporalio/workflow";
import { expect, it } from "vitest";
import { HISTORIES, loadHistory, sharedBundle, turnWorkflowId } from "./harness.js";

const EXPECTED = [
  "crash-during-model-call",
  "delegation-turn-1",
  "permanent-failure",
  "person-answered",
  "person-task-answered-task",
  "person-task-answered",
  "person-task-waiting",
  "person-waiting",
  "transient-retries",
  "tutorial-2-turn-1",
  "tutorial-2-turn-2",
];

function histories() {
  const files = readdirSync(HISTORIES)
    .filter((file) => file.endsWith(".json"))
    .sort();
  return files.map((file) => {
    const history = loadHistory(join(HISTORIES, file));
    return { name: file.replace(/\.json$/, ""), workflowId: turnWorkflowId(history), history };
  });
}

it("every recorded history replays on the current workflow code without a determinism error", async () => {
  const recorded = histories();
  expect(
    recorded.map((entry) => entry.name),
    "the histories under test/fixtures/histories (SOEV_RECORD_HISTORIES=1 re-records them)",
  ).toEqual(EXPECTED);
  const results = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle: await sharedBundle() }, recorded))
    results.push(result);
  expect(results.map((result) => [result.workflowId, result.error?.message ?? null])).toEqual(
    recorded.map((entry) => [entry.workflowId, null]),
  );
});

it("a workflow whose commands changed fails the replay of a recorded history", async () => {
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL("../fixtures/temporal/changed-workflow.ts", import.meta.url)),
  });
  const [recorded] = histories().filter((entry) => entry.name === "tutorial-2-turn-1");
  const results = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle }, [recorded!])) results.push(result);
  expect(results[0]!.error).toBeInstanceOf(DeterminismViolationError);
});
