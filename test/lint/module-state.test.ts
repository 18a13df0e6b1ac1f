// No module-level mutable state in the context core (issue 55): results are return values and caches are owned by
// an object (the builder's ThreadCache, a Selection, a Show, a Trace's index), never by a module. The scan reads
// each file's top-level statements with the TypeScript parser.
import { readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import ts from "typescript";
import { expect, it } from "vitest";

const FOLDER = resolve(import.meta.dirname, "../../src/toolkit/context");

/** Collections whose instances can change, and functions that return a closure keeping a cache. */
const MUTABLE = new Set(["Map", "WeakMap", "Set", "WeakSet", "Array", "RecentLists", "UnitIndex"]);
const CACHING = new Set(["foldedOver", "turnStartsFold", "attributeNames"]);

/** The module-level state a file's source declares, as "file: name (what)". */
function moduleState(file: string, source: string): string[] {
  const parsed = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  for (const statement of parsed.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const list = statement.declarationList;
    const constant = (list.flags & ts.NodeFlags.Const) !== 0;
    for (const declaration of list.declarations) {
      const name = declaration.name.getText(parsed);
      if (!constant) found.push(`${file}: ${name} (let)`);
      else if (declaration.initializer !== undefined) {
        const what = mutableValue(declaration.initializer);
        if (what !== undefined) found.push(`${file}: ${name} (${what})`);
      }
    }
  }
  return found;
}

// What makes an initializer mutable state: a new collection, an array literal, or a call that returns a cache.
function mutableValue(initializer: ts.Expression): string | undefined {
  let value = initializer;
  while (ts.isAsExpression(value) || ts.isSatisfiesExpression(value) || ts.isParenthesizedExpression(value))
    value = value.expression;
  if (ts.isArrayLiteralExpression(value)) return "array";
  if (ts.isNewExpression(value) && ts.isIdentifier(value.expression) && MUTABLE.has(value.expression.text))
    return `new ${value.expression.text}`;
  if (ts.isCallExpression(value) && ts.isIdentifier(value.expression) && CACHING.has(value.expression.text))
    return `${value.expression.text}()`;
  return undefined;
}

it("finds module-level state where a file declares it", () => {
  const source = [
    "let count = 0;",
    "export const byId = new WeakMap<object, string>();",
    "const scratch: string[] = [];",
    "const starts = foldedOver(() => [], (x) => x, (x) => x);",
    "const SHAPE = Object.freeze({ form: 1 });",
    "function f() { const local = new Map(); let n = 0; return [local, n]; }",
  ].join("\n");
  expect(moduleState("example.ts", source)).toEqual([
    "example.ts: count (let)",
    "example.ts: byId (new WeakMap)",
    "example.ts: scratch (array)",
    "example.ts: starts (foldedOver())",
  ]);
});

it("keeps no module-level mutable state in src/toolkit/context", () => {
  const files = readdirSync(FOLDER).filter((name) => name.endsWith(".ts"));
  expect(files.length).toBeGreaterThan(10);
  const state = files.flatMap((name) => moduleState(name, readFileSync(join(FOLDER, name), "utf8")));
  expect(state, "own the state in an object (the builder, ThreadCache) or make it a return value").toEqual([]);
});
