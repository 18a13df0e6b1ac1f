import { ESLint, type Linter } from "eslint";
import tseslint from "typescript-eslint";
import { describe, expect, it } from "vitest";

/** The project's rule for workflows/, alone: type-aware linting of the whole project is not needed here. */
const { default: config } = (await import(new URL("../../eslint.config.js", import.meta.url).href)) as {
  default: Linter.Config[];
};
const workflowsRule = config.find((entry) => entry.files?.includes("workflows/**/*.ts"))!;

/** The messages of the workflows import rule for `code` written as a file in workflows/. */
async function workflowLint(code: string): Promise<string[]> {
  const eslint = new ESLint({
    overrideConfigFile: true,
    overrideConfig: [
      { files: ["**/*.ts"], languageOptions: { parser: tseslint.parser as Linter.Parser } },
      workflowsRule,
    ],
  });
  const [result] = await eslint.lintText(code, { filePath: "workflows/loop.ts" });
  return result!.messages.filter((message) => message.ruleId === "no-restricted-imports").map((m) => m.message);
}

describe("the workflows import rule", () => {
  it("allows the workflow SDK, files inside workflows/ and the contract", async () => {
    const allowed = [
      'import { proxyActivities } from "@temporalio/workflow";',
      'import { runGraph } from "./loop.js";',
      'import type { TurnArgument } from "../src/temporal/contract.js";',
      'export { soevTask } from "./task.js";',
    ];
    for (const line of allowed) expect(await workflowLint(line), line).toEqual([]);
  });

  it("refuses Node built-ins, I/O modules, the runtime's code and paths that leave workflows/", async () => {
    const refused = [
      'import { readFileSync } from "node:fs";',
      'import { readFileSync } from "fs";',
      'import pg from "pg";',
      'import { Context } from "@temporalio/activity";',
      'import { Trace } from "../src/domain/trace.js";',
      'import type { TurnAccess } from "../activities/turn-access.js";',
      'import { x } from "./../src/runtime/index.js";',
      'export { Graph } from "../src/runtime/graph.js";',
    ];
    for (const line of refused) expect(await workflowLint(line), line).toHaveLength(1);
  });
});
