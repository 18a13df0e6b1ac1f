/**
 * What a Jinja template reads, from its syntax tree (jinja-syntax.ts): the variables it looks up outside
 * its own loop, set and macro names, the filters it applies, and the blocks it defines.
 */
import { childrenOf, isNode, parseJinja } from "./jinja-syntax.js";

/** What one template reads and defines. */
export interface TemplateReads {
  /** The variables the template reads from its context, in order of first reading. */
  variables: string[];
  /** The filters the template applies. */
  filters: string[];
  /** The names of the template's blocks, nested ones included, in order. */
  blocks: string[];
  /** The names that top-level `{% set %}` tags assign: a block override of a layer may read them. */
  assigned: string[];
}

/** Parse `source` and return what it reads. Throws the parser's error when the source is not valid Jinja. */
export function templateReads(source: string): TemplateReads {
  const walker = new Walker();
  const scope = new Set<string>();
  walker.walk(parseJinja(source), scope);
  return {
    variables: [...walker.variables],
    filters: [...walker.filters],
    blocks: walker.blocks,
    assigned: [...scope],
  };
}

function nameOf(node: unknown): string | null {
  return isNode(node) && node.typename === "Symbol" ? String(node.value) : null;
}

// Scopes follow Jinja closely enough for a check at build time: a loop, a macro and a set-capture see
// their own names; a `{% set %}` is seen by what follows it in the same scope.
class Walker {
  readonly variables = new Set<string>();
  readonly filters = new Set<string>();
  readonly blocks: string[] = [];

  walk(value: unknown, scope: Set<string>): void {
    if (Array.isArray(value)) {
      for (const item of value) this.walk(item, scope);
      return;
    }
    if (!isNode(value)) return;
    const node = value;
    switch (node.typename) {
      case "Symbol": {
        const name = String(node.value);
        if (!scope.has(name)) this.variables.add(name);
        return;
      }
      case "Filter":
      case "FilterAsync": {
        const name = nameOf(node.name);
        if (name !== null) this.filters.add(name);
        this.walk(node.args, scope);
        return;
      }
      case "Is": {
        // The right side names a test (`is defined`, `is divisibleby(3)`): only a call's arguments are read.
        this.walk(node.left, scope);
        if (isNode(node.right) && node.right.typename === "FunCall") this.walk(node.right.args, scope);
        return;
      }
      case "Pair": {
        // A dict's or keyword argument's key is a name, not a lookup.
        if (nameOf(node.key) === null) this.walk(node.key, scope);
        this.walk(node.value, scope);
        return;
      }
      case "For":
      case "AsyncEach":
      case "AsyncAll": {
        this.walk(node.arr, scope);
        const inner = new Set([...scope, "loop", ...this.targets(node.name)]);
        this.walk(node.body, inner);
        this.walk(node.else_, scope);
        return;
      }
      case "Set": {
        this.walk(node.value, scope);
        if (isNode(node.body)) this.walk(node.body, new Set(scope));
        for (const target of this.targets(node.targets)) scope.add(target);
        return;
      }
      case "Macro":
      case "Caller": {
        const name = nameOf(node.name);
        if (name !== null && node.typename === "Macro") scope.add(name);
        const inner = new Set([...scope, "caller"]);
        for (const argument of childrenOf(node.args)) {
          if (isNode(argument) && argument.typename === "KeywordArgs") {
            for (const pair of childrenOf(argument)) {
              if (!isNode(pair)) continue;
              this.walk(pair.value, scope);
              const key = nameOf(pair.key);
              if (key !== null) inner.add(key);
            }
          } else {
            for (const target of this.targets(argument)) inner.add(target);
          }
        }
        this.walk(node.body, inner);
        return;
      }
      case "Block": {
        const name = nameOf(node.name);
        if (name !== null) this.blocks.push(name);
        this.walk(node.body, new Set(scope));
        return;
      }
      case "Import": {
        this.walk(node.template, scope);
        for (const target of this.targets(node.target)) scope.add(target);
        return;
      }
      case "FromImport": {
        this.walk(node.template, scope);
        for (const name of childrenOf(node.names)) {
          const alias = isNode(name) && name.typename === "Pair" ? name.value : name;
          for (const target of this.targets(alias)) scope.add(target);
        }
        return;
      }
      default:
        for (const field of node.fields) this.walk(node[field], scope);
    }
  }

  // The names a loop, a set or an import assigns: one symbol, or a list of them (`for key, value in ...`).
  private targets(value: unknown): string[] {
    const name = nameOf(value);
    if (name !== null) return [name];
    return childrenOf(value).flatMap((child) => this.targets(child));
  }
}
