/**
 * The syntax of prompt templates: the tree nunjucks' parser makes of Jinja text (nunjucks/src/parser.js,
 * which loads its lexer and node classes only: never its compiler, environment or runtime). The tree is
 * data; jinja-interpreter.ts walks it. `checkedTree` refuses at load every node the interpreter does not
 * know, and every name that is no identifier or names a path to prototypes.
 */
import { createRequire } from "node:module";
import { unsafeName, type UnsafeName } from "./sandbox.js";
import { PromptFileError } from "./schema.js";

/** A node of the syntax tree (see nunjucks/src/nodes.js): its type, fields and position. */
export interface JinjaNode {
  readonly typename: string;
  readonly fields: readonly string[];
  readonly lineno: number;
  readonly colno: number;
  readonly children?: readonly JinjaNode[];
  readonly [field: string]: unknown;
}

// The parser module alone, by path: the package's main module would load the compiler too.
const parser = createRequire(import.meta.url)("nunjucks/src/parser.js") as { parse(source: string): JinjaNode };

/** Parse Jinja text to its tree; throws the parser's error (with its line) on invalid Jinja. */
export function parseJinja(source: string): JinjaNode {
  return parser.parse(source);
}

/** The node types the interpreter evaluates: any other is refused at load. */
export const NODE_TYPES: ReadonlySet<string> = new Set([
  "Root", "NodeList", "Output", "TemplateData", "Literal", "Symbol", "Group", "Array", "Dict", "Pair", "LookupVal",
  "If", "InlineIf", "For", "Macro", "Caller", "FunCall", "Filter", "KeywordArgs", "Block", "Extends", "Set",
  "Capture", "Switch", "Case", "In", "Is", "Or", "And", "Not", "Add", "Concat", "Sub", "Mul", "Div", "FloorDiv",
  "Mod", "Pow", "Neg", "Pos", "Compare", "CompareOperand",
]); // prettier-ignore

/** Whether `value` is a node of the tree. */
export function isNode(value: unknown): value is JinjaNode {
  return value !== null && typeof value === "object" && typeof (value as JinjaNode).typename === "string";
}

/** The items of a node list (or an array of nodes). */
export function childrenOf(value: unknown): readonly JinjaNode[] {
  if (Array.isArray(value)) return value as JinjaNode[];
  return isNode(value) && Array.isArray(value.children) ? value.children : [];
}

/** Every node of the tree, depth first. */
export function* nodesOf(value: unknown): Generator<JinjaNode> {
  if (Array.isArray(value)) {
    for (const item of value) yield* nodesOf(item);
    return;
  }
  if (!isNode(value)) return;
  yield value;
  for (const field of value.fields) yield* nodesOf(value[field]);
  if (Array.isArray(value.children) && !value.fields.includes("children")) yield* nodesOf(value.children);
}

/**
 * Check a parsed template before any render: node types from NODE_TYPES only, literals of data only (no
 * regular expression), `extends` of a named template only where the engine writes it, and every name
 * (variables, set and loop targets, macros and their arguments, keyword names) an identifier that is
 * not `constructor`, `prototype` or `__*`; string subscripts and attribute arguments likewise.
 */
export function unsafeNodes(tree: JinjaNode, allowExtends: boolean): UnsafeName[] {
  const found: UnsafeName[] = [];
  for (const node of nodesOf(tree)) {
    const line = node.lineno + 1;
    if (!NODE_TYPES.has(node.typename)) {
      found.push({ name: node.typename, line, why: refusedNode(node.typename) });
    } else if (node.typename === "Extends" && !allowExtends) {
      found.push({
        name: "extends",
        line,
        why: "a prompt template extends no other template: a model layer replaces its blocks",
      });
    } else if (node.typename === "Symbol") {
      const why = unsafeName(String(node.value), true);
      if (why !== null) found.push({ name: String(node.value), line, why });
    } else if (node.typename === "Literal" || node.typename === "TemplateData") {
      const value = node.value;
      if (value !== null && value !== undefined && !["string", "number", "boolean"].includes(typeof value)) {
        found.push({ name: String(value), line, why: "a prompt template has no regular expressions" });
      } else if (node.typename === "Literal" && typeof value === "string") {
        // A string names an attribute too: `x["constructor"]`, `map(attribute="__proto__")`.
        for (const part of value.split(".")) {
          const why = unsafeName(part, false);
          if (why !== null) found.push({ name: part, line, why });
        }
      }
    }
  }
  return found;
}

function refusedNode(typename: string): string {
  if (["Include", "Import", "FromImport"].includes(typename)) {
    return "a prompt template includes and imports no other template: write the text in it, or a macro";
  }
  if (typename.startsWith("CallExtension") || typename.endsWith("Async") || typename.startsWith("Async")) {
    return "a prompt template calls no extensions and no asynchronous tags";
  }
  return "the template engine of prompt files does not evaluate this tag";
}

/** Throw a PromptFileError for the first of `found`, naming `where` and the line. */
export function refuseUnsafe(found: readonly UnsafeName[], where: string): void {
  const first = found[0];
  if (first === undefined) return;
  throw new PromptFileError(
    `${where}, line ${first.line}: the template reads "${first.name}" (${first.why}): a prompt file is data, not code. Remove it.`,
  );
}
