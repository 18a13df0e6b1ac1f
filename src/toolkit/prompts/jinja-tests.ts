/** The tests of prompt templates (`x is defined`, `n is divisibleby(3)`), the allow-list the interpreter calls. */
import { Callable, equal, isDict, less, numeric, type Arguments, type Value } from "./jinja-values.js";
import { TemplateSandboxError } from "./sandbox.js";

type Test = (value: Value, other: Value) => boolean;

const TESTS: ReadonlyMap<string, Test> = new Map<string, Test>([
  ["defined", (value) => value !== undefined],
  ["undefined", (value) => value === undefined],
  ["none", (value) => value === null],
  ["null", (value) => value === null],
  ["number", (value) => typeof value === "number"],
  ["string", (value) => typeof value === "string"],
  ["boolean", (value) => typeof value === "boolean"],
  ["true", (value) => value === true],
  ["false", (value) => value === false],
  ["mapping", (value) => isDict(value)],
  ["iterable", (value) => typeof value === "string" || Array.isArray(value) || isDict(value)],
  ["sequence", (value) => typeof value === "string" || Array.isArray(value) || isDict(value)],
  ["callable", (value) => value instanceof Callable],
  ["odd", (value) => numeric(value, "odd") % 2 === 1],
  ["even", (value) => numeric(value, "even") % 2 === 0],
  ["divisibleby", (value, other) => numeric(value, "divisibleby") % numeric(other, "divisibleby") === 0],
  ["eq", equal],
  ["equalto", equal],
  ["sameas", (value, other) => value === other],
  ["ne", (value, other) => !equal(value, other)],
  ["lt", less],
  ["lessthan", less],
  ["gt", (value, other) => less(other, value)],
  ["greaterthan", (value, other) => less(other, value)],
  ["le", (value, other) => !less(other, value)],
  ["ge", (value, other) => !less(value, other)],
  ["lower", (value) => typeof value === "string" && value.toLowerCase() === value],
  ["upper", (value) => typeof value === "string" && value.toUpperCase() === value],
  ["truthy", (value) => Boolean(value)],
  ["falsy", (value) => !value],
  ["escaped", () => false],
]);

/** Apply the test `name` to `value`; an unknown test is refused. */
export function applyTest(name: string, value: Value, args: Arguments): boolean {
  const test = TESTS.get(name);
  if (test === undefined) throw new TemplateSandboxError(`no test named "${name}"`);
  return test(value, args.positional[0]);
}
