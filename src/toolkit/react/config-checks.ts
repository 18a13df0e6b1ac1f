/** The checks of a ReActConfig's settings: a bad config fails when it is made, before any model call. */
import { ValueError } from "../../domain/errors.js";
import type { Tool } from "../../runtime/contracts.js";
import { ModelLimits } from "../context/limits.js";
import { PromptFile } from "../prompts/prompt-file.js";
import type { ReActConfigOptions } from "./config-options.js";
import { ToolDeclaration } from "./declaration.js";

/** The variables that a ReActAgent gives a PromptFile's system template. */
const PROMPT_VARIABLES = ["citation"] as const;

/**
 * Check every setting of a config, defaults applied.
 * @throws ValueError for a setting of the wrong kind; passes or toolRoundsAfterCap that is not a whole
 *   number of at least 0; two declarations that share a name; tools that hold a tool twice or a tool that
 *   is not declared; a declared or supplied tool with the name of a tool that the context adds.
 * @throws PromptFileError when a PromptFile's system template, or a block that a model layer replaces,
 *   reads a variable other than `citation`.
 */
export function checkConfig(settings: Required<ReActConfigOptions>): void {
  checkKinds(settings);
  for (const setting of ["passes", "toolRoundsAfterCap"] as const) {
    const value = settings[setting];
    if (!Number.isInteger(value) || value < 0)
      throw new ValueError(`${setting} must be a whole number of at least 0, not ${String(value)}.`);
  }
  checkTools(settings.tools, settings.declared, settings.context.addedTools);
  if (settings.prompt instanceof PromptFile) settings.prompt.checkVariables(PROMPT_VARIABLES);
}

function checkKinds(settings: Required<ReActConfigOptions>): void {
  const { model, prompt, limits, context, citations } = settings;
  if (typeof model?.complete !== "function" || typeof model.resolve !== "function") {
    throw new ValueError("model must be a ChatModel, such as OpenAIChatModel(...) or a ScriptedModel.");
  }
  if (typeof prompt !== "string" && typeof prompt !== "function" && !(prompt instanceof PromptFile)) {
    throw new ValueError("prompt must be a text, a PromptFile, or a function of the turn and the example citation.");
  }
  if (!(limits instanceof ModelLimits))
    throw new ValueError("limits must be ModelLimits, such as new ModelLimits({ window: new Tokens(128_000) }).");
  if (
    typeof context?.forTurn !== "function" ||
    typeof context.wrap !== "function" ||
    !Array.isArray(context.addedTools)
  ) {
    throw new ValueError("context must be a ContextStrategy, such as new MessageBuilder().");
  }
  if (citations !== null && (typeof citations?.write !== "function" || typeof citations.parse !== "function")) {
    throw new ValueError("citations must be a CitationStrategy, such as BRACKETS, or null.");
  }
  for (const setting of ["renderInput", "toolStates"] as const) {
    if (typeof settings[setting] !== "function")
      throw new ValueError(`${setting} must be a function of the parsed turn.`);
  }
  for (const setting of ["resetsOnAnswer", "repeats"] as const) {
    if (typeof settings[setting] !== "boolean") throw new ValueError(`${setting} must be true or false.`);
  }
}

function checkTools(tools: readonly Tool[], declared: readonly ToolDeclaration[] | null, added: readonly Tool[]): void {
  if (!Array.isArray(tools) || tools.some((tool) => typeof tool?.name !== "string" || typeof tool.def !== "function")) {
    throw new ValueError("tools must be a list of tools, such as ones that tool() made.");
  }
  if (
    declared !== null &&
    (!Array.isArray(declared) || declared.some((declaration) => !(declaration instanceof ToolDeclaration)))
  ) {
    throw new ValueError("declared must be a list of ToolDeclaration, or null to declare each of tools.");
  }
  const twiceDeclared = twice((declared ?? []).map((declaration) => declaration.name));
  if (twiceDeclared !== undefined)
    throw new ValueError(`Two declarations share the name "${twiceDeclared}": declare each tool once.`);
  const twiceSupplied = twice(tools.map((tool) => tool.name));
  if (twiceSupplied !== undefined) throw new ValueError(`tools holds "${twiceSupplied}" twice: supply each tool once.`);
  if (declared !== null) {
    const names = new Set(declared.map((declaration) => declaration.name));
    const undeclared = tools.find((tool) => !names.has(tool.name));
    if (undeclared !== undefined) {
      throw new ValueError(
        `tools holds "${undeclared.name}", which is not declared (declared: ${[...names].join(", ") || "none"}): add a ToolDeclaration for it.`,
      );
    }
  }
  const addedNames = new Set(added.map((tool) => tool.name));
  const taken = [...(declared ?? []).map((declaration) => declaration.name), ...tools.map((tool) => tool.name)].find(
    (name) => addedNames.has(name),
  );
  if (taken !== undefined) {
    throw new ValueError(
      `The tool "${taken}" has the name of a tool that the context adds: rename your tool, or give the context no such tool.`,
    );
  }
}

function twice(names: readonly string[]): string | undefined {
  return names.find((name, index) => names.indexOf(name) !== index);
}
