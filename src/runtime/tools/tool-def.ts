/** ToolDef: what the model is offered of a tool, with the id arguments the LlmStep maps. */
import { z } from "zod";
import type { JsonValue } from "../../domain/json.js";
import { ToolDef } from "../../ports/messages.js";
import type { Tool } from "../contracts.js";
import { idArguments } from "./ids.js";

/**
 * The JSON schema of a tool's arguments, as the model writes them: draft 2020-12 without the `$schema` key,
 * fields with defaults optional, no other fields (additionalProperties false).
 * Throws when a field has no JSON schema (such as a date), so a bad tool fails when it is made.
 */
export function argumentsSchema(args: z.ZodObject<any>): Record<string, JsonValue> {
  const schema = z.toJSONSchema(args, { target: "draft-2020-12", io: "input" }) as Record<string, unknown>;
  delete schema.$schema;
  schema.additionalProperties = false;
  return JSON.parse(JSON.stringify(schema)) as Record<string, JsonValue>;
}

/**
 * The definition of a tool: its name, description and arguments schema; `elements` names each argument that
 * holds element numbers with the type names it accepts (subtypes included), `results` each that holds handles.
 * A tool asked again with the same schema object gets the same definition while the type names are the same.
 */
export function toolDef(
  tool: Pick<Tool, "name" | "description" | "args">,
  parameters = argumentsSchema(tool.args),
): ToolDef {
  const elements: Record<string, string[]> = {};
  const results: string[] = [];
  for (const [name, argument] of idArguments(tool.args)) {
    // Read the names now, not when the tool was made: a subtype declared later is accepted too.
    if (argument.target.kind === "element") elements[name] = [...argument.target.type.names];
    else results.push(name);
  }
  const last = lastDefs.get(tool);
  if (last?.parameters === parameters && last.description === tool.description && sameIds(last, elements, results))
    return last;
  const def = ToolDef({ name: tool.name, description: tool.description, parameters, elements, results });
  lastDefs.set(tool, def);
  return def;
}

// The definition last made of each tool: what is kept of a definition (its canonical JSON for a request's hash)
// holds for the next build's too, which asks for it again.
const lastDefs = new WeakMap<object, ToolDef>();

function sameIds(def: ToolDef, elements: Record<string, string[]>, results: readonly string[]): boolean {
  const names = Object.keys(elements);
  if (names.length !== Object.keys(def.elements).length || !sameList(def.results, results)) return false;
  return names.every((name) => def.elements[name] !== undefined && sameList(def.elements[name], elements[name]!));
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}
