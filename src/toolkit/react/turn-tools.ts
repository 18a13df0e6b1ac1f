/** The tools of one turn: which declared tools the turn offers, and the instructions of those it requires. */
import type { Tool } from "../../runtime/contracts.js";
import { InputDeniedError } from "../../runtime/errors.js";
import { ToolState, type ToolStates } from "../inputs/input-types.js";
import type { ToolDeclaration } from "./declaration.js";

/**
 * The tools that a turn offers: each declared tool that is supplied and whose state is not "off", in the
 * order of `declarations`.
 * @throws InputDeniedError when the turn names a tool that was never declared, asks a state that is not
 *   a ToolState, asks another state than the default of a locked one, or requires one that is not supplied.
 */
export function offeredTools(
  declarations: readonly ToolDeclaration[],
  states: ToolStates,
  supplied: readonly Tool[],
): Tool[] {
  checkStates(declarations, states);
  const byName = new Map(supplied.map((tool) => [tool.name, tool]));
  const offered: Tool[] = [];
  for (const declaration of declarations) {
    const state = declaration.state(states);
    const tool = byName.get(declaration.name);
    if (state === "required" && tool === undefined) {
      throw new InputDeniedError(
        `The input requires the tool "${declaration.name}", which this turn's config does not supply.`,
        {
          details: { tool: declaration.name },
        },
      );
    }
    if (state !== "off" && tool !== undefined) offered.push(tool);
  }
  return offered;
}

/**
 * The instructions of the tools that a turn requires, in the order of `declarations`, each in the words
 * of its declaration. It reads any recorded turn, so it refuses nothing: the running turn was checked.
 */
export function requiredInstructions(declarations: readonly ToolDeclaration[], states: ToolStates): string[] {
  return declarations
    .filter((declaration) => declaration.state(states) === "required")
    .map((declaration) => declaration.instruction);
}

function checkStates(declarations: readonly ToolDeclaration[], states: ToolStates): void {
  if (states === null || typeof states !== "object")
    throw new InputDeniedError("The tool states of the input must be an object of states by tool name.");
  const byName = new Map(declarations.map((declaration) => [declaration.name, declaration]));
  for (const [name, state] of Object.entries(states)) {
    const declaration = byName.get(name);
    if (declaration === undefined) {
      throw new InputDeniedError(
        `The input names the tool "${name}", which the agent never declared (declared: ${[...byName.keys()].join(", ") || "none"}).`,
        {
          details: { tool: name },
        },
      );
    }
    if (!ToolState.safeParse(state).success) {
      throw new InputDeniedError(
        `The input asks ${JSON.stringify(state)} of the tool "${name}": a state is "off", "auto" or "required".`,
        {
          details: { tool: name },
        },
      );
    }
    if (declaration.locked && state !== declaration.default) {
      throw new InputDeniedError(
        `The input asks "${state}" of the tool "${name}", which is locked to "${declaration.default}".`,
        {
          details: { tool: name },
        },
      );
    }
  }
}
