/**
 * `soev-agents whatif`: what a candidate agent would have sent at the recorded model calls of the store's
 * threads, with no model call. The two catalogs come from modules of the app: each exports (as default,
 * or as `catalog`) a function that takes the trace store and returns an AgentCatalog.
 */
import { parseArgs } from "node:util";
import { ValueError } from "../domain/errors.js";
import { storeFromEnvironment } from "../adapters/stores/from-environment.js";
import { catalogFrom } from "../runtime/catalog-module.js";
import { positiveInteger, storeThreadIds } from "./arguments.js";
import { whatIf, whatIfThreads, type WhatIfCall } from "../runtime/what-if.js";

const USAGE = `usage: soev-agents whatif (THREAD | --all) --catalog MODULE --candidate MODULE [--call N] [--limit N] [--json]
  THREAD       a thread of the store (DATABASE_URL, else the SQLite file under SOEV_DATA_DIR, as the worker opens it)
  --all        every thread of the store, newest first, at most --limit (default 1000)
  --catalog    the module of the agents that recorded the threads
  --candidate  the module of the changed agents, under the same names
  --call N     only the Nth model call of THREAD, with the messages that differ
  --json       the result as JSON`;

/** Run the command on its arguments (after "whatif"); the lines go to `write`. Returns the exit code. */
export async function whatIfCommand(argv: readonly string[], write: (text: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: {
      all: { type: "boolean" },
      catalog: { type: "string" },
      candidate: { type: "string" },
      call: { type: "string" },
      limit: { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: true,
  });
  if (values.help) {
    write(`${USAGE}\n`);
    return 0;
  }
  const threadId = positionals[0];
  if ((threadId === undefined) === !values.all || positionals.length > 1)
    throw new ValueError(`give one THREAD or --all.\n${USAGE}`);
  if (!values.catalog || !values.candidate) throw new ValueError(`give --catalog and --candidate.\n${USAGE}`);
  const store = await storeFromEnvironment();
  try {
    const recorded = await catalogFrom(values.catalog, store);
    const candidate = await catalogFrom(values.candidate, store);
    if (threadId === undefined) {
      const threads = await storeThreadIds(store, positiveInteger(values.limit ?? "1000", "--limit"));
      const summary = await whatIfThreads(recorded, candidate, threads);
      write(values.json ? `${JSON.stringify(summary, null, 2)}\n` : summaryLines(summary).join("\n") + "\n");
      return 0;
    }
    let calls = await whatIf(recorded, candidate, threadId);
    if (values.call !== undefined) {
      const wanted = positiveInteger(values.call, "--call");
      calls = calls.filter((call) => call.call === wanted);
      if (calls.length === 0) throw new ValueError(`thread "${threadId}" has no model call ${wanted}.`);
    }
    write(values.json ? `${JSON.stringify(calls.map(plain), null, 2)}\n` : callLines(calls, values.call !== undefined));
    return 0;
  } finally {
    await store.close();
  }
}

const FORMS = ["STUBBED", "COMPRESSED", "FULL"];

function callLines(calls: readonly WhatIfCall[], withMessages: boolean): string {
  const lines: string[] = [];
  for (const call of calls) {
    lines.push(`call ${call.call}: ${describe(call)}`);
    if (!withMessages || call.difference === null) continue;
    for (const place of call.difference.messages) {
      lines.push(`  message ${place}:`);
      lines.push(`    recorded:  ${shown(call.recorded!.messages[place])}`);
      lines.push(`    candidate: ${shown(call.candidate!.messages[place])}`);
    }
  }
  return lines.join("\n") + "\n";
}

function describe(call: WhatIfCall): string {
  if (call.recorded === null || call.candidate === null) return "no request (its node builds none)";
  const stale = call.matches ? "" : " (the recorded agent no longer rebuilds the recorded request)";
  if (call.same) return `same${stale}`;
  const { messages, toolsAdded, toolsRemoved, toolsChanged, characters, forms } = call.difference!;
  const parts = [`messages ${messages.join(", ") || "none"}`];
  if (toolsAdded.length) parts.push(`tools added ${toolsAdded.join(", ")}`);
  if (toolsRemoved.length) parts.push(`tools removed ${toolsRemoved.join(", ")}`);
  if (toolsChanged.length) parts.push(`tools changed ${toolsChanged.join(", ")}`);
  parts.push(`characters ${characters.recorded} -> ${characters.candidate}`);
  for (const form of forms) parts.push(`${form.result} ${FORMS[form.recorded]} -> ${FORMS[form.candidate]}`);
  return `changed: ${parts.join("; ")}${stale}`;
}

function shown(message: unknown): string {
  if (message === undefined) return "(none)";
  const text = JSON.stringify(message);
  return text.length > 300 ? `${text.slice(0, 300)}...` : text;
}

function summaryLines(summary: Awaited<ReturnType<typeof whatIfThreads>>): string[] {
  const { threads, calls, changed, characters, changedCalls } = summary;
  const lines = [
    `${changed} of ${calls} model calls in ${threads} threads would change; characters ${characters.recorded} -> ${characters.candidate}`,
  ];
  for (const [threadId, numbers] of Object.entries(changedCalls))
    lines.push(`  ${threadId}: calls ${numbers.join(", ")}`);
  return lines;
}

// A call as JSON: the requests as their canonical JSON, the output as recorded.
function plain(call: WhatIfCall) {
  return {
    ...call,
    recorded: call.recorded?.toCanonical() ?? null,
    candidate: call.candidate?.toCanonical() ?? null,
  };
}
