/**
 * `soev-agents rerun`: re-run recorded threads against a candidate agent as a durable batch (startRerun),
 * wait for it, and with both catalog modules print the comparison (compareRerun) as markdown or JSON.
 */
import { parseArgs } from "node:util";
import { Client, Connection } from "@temporalio/client";
import { ValueError } from "../domain/errors.js";
import { storeFromEnvironment } from "../adapters/stores/from-environment.js";
import { catalogFrom } from "../runtime/catalog-module.js";
import { compareRerun, rerunMarkdown } from "../runtime/rerun-report.js";
import { startRerun } from "../temporal/rerun.js";
import { temporalSettings } from "../temporal/settings.js";
import { positiveInteger, storeThreadIds } from "./arguments.js";

const USAGE = `usage: soev-agents rerun (THREAD... | --all [--limit N]) --agent NAME --candidate-agent NAME [options]
  --agent            the agent that recorded the threads
  --candidate-agent  the agent to re-run them against
  --candidate-queue  the task queue of the candidate's workers (default TEMPORAL_TASK_QUEUE)
  --concurrency N    threads at once (default 4); --max-turns N: at most N candidate turns
  --batch ID         the batch's id (default a new one)
  --catalog MODULE --candidate MODULE   the two catalog modules: print the comparison when both are given
  --json             the result (and comparison) as JSON
Temporal from TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE; the store from DATABASE_URL or SOEV_DATA_DIR.`;

/** Run the command on its arguments (after "rerun"); returns the exit code. */
export async function rerunCommand(argv: readonly string[], write: (text: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: {
      all: { type: "boolean" },
      limit: { type: "string" },
      agent: { type: "string" },
      "candidate-agent": { type: "string" },
      "candidate-queue": { type: "string" },
      concurrency: { type: "string" },
      "max-turns": { type: "string" },
      batch: { type: "string" },
      catalog: { type: "string" },
      candidate: { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: true,
  });
  if (values.help) {
    write(`${USAGE}\n`);
    return 0;
  }
  if ((positionals.length === 0) === !values.all) throw new ValueError(`give THREAD... or --all.\n${USAGE}`);
  if (!values.agent || !values["candidate-agent"])
    throw new ValueError(`give --agent and --candidate-agent.\n${USAGE}`);
  if (Boolean(values.catalog) !== Boolean(values.candidate))
    throw new ValueError("give both --catalog and --candidate to compare, or neither.");
  const settings = temporalSettings();
  const store = await storeFromEnvironment();
  const connection = await Connection.connect(settings.connection);
  try {
    const threadIds = values.all
      ? (await storeThreadIds(store, positiveInteger(values.limit ?? "1000", "--limit"))).filter(
          (id) => !id.startsWith("rerun-"),
        )
      : positionals;
    const batch = await startRerun(new Client({ connection, namespace: settings.namespace }), {
      threadIds,
      agent: values.agent,
      candidate: { agent: values["candidate-agent"], taskQueue: values["candidate-queue"] ?? settings.taskQueue },
      taskQueue: settings.taskQueue,
      ...(values.batch ? { batchId: values.batch } : {}),
      ...(values.concurrency ? { concurrency: positiveInteger(values.concurrency, "--concurrency") } : {}),
      ...(values["max-turns"] ? { maxTurns: positiveInteger(values["max-turns"], "--max-turns") } : {}),
    });
    const result = await batch.result();
    if (!values.catalog || !values.candidate) {
      write(values.json ? `${JSON.stringify(result, null, 2)}\n` : `${describe(result)}\n`);
      return 0;
    }
    const report = await compareRerun({
      original: { catalog: await catalogFrom(values.catalog, store), agent: values.agent },
      candidate: { catalog: await catalogFrom(values.candidate, store), agent: values["candidate-agent"] },
      threads: threadIds.map((original) => ({ original, candidate: batch.candidateThreads[original]! })),
    });
    write(
      values.json
        ? `${JSON.stringify({ result, report }, null, 2)}\n`
        : `${describe(result)}\n\n${rerunMarkdown(report)}`,
    );
    return 0;
  } finally {
    await connection.close();
    await store.close();
  }
}

function describe(result: { batchId: string; threads: number; turns: number; failed: number; skipped: number }) {
  return `batch ${result.batchId}: ${result.threads} threads, ${result.turns} turns re-run, ${result.failed} failed, ${result.skipped} skipped`;
}
