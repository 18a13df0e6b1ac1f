/**
 * Jinja's `format`: Python's `%` formatting, with positional values or keywords (`%(name)s`). The format
 * string is read by a scanner in linear time (a regular expression over it backtracked on `%(` without a
 * `)`), and each width and precision is stated to the budget before the padding is made.
 */
import { text, numeric, type Arguments, type Value } from "./jinja-values.js";
import { RenderBudget, TemplateSandboxError } from "./sandbox.js";

interface Spec {
  flags: string;
  width: number;
  precision: number | undefined;
  type: string;
  end: number;
}

const FLAGS = "-+ 0#";
const TYPES = "sdifFeExXor%";

/** `value | format(...)`. */
export function format(value: Value, args: Arguments, budget: RenderBudget): string {
  if (args.positional.length > 0 && args.keywords.size > 0) {
    throw new TemplateSandboxError("format() takes positional values or keywords, not both");
  }
  const source = text(value);
  const specs = new Map<number, Spec | null>();
  let closing = -1;
  let next = 0;
  let output = "";
  let position = 0;
  for (let at = source.indexOf("%"); at !== -1; at = source.indexOf("%", at + 1)) {
    if (at < position) continue;
    budget.step();
    let key: string | undefined;
    let start = at + 1;
    if (source[start] === "(") {
      if (closing < start) closing = source.indexOf(")", start);
      if (closing === -1) closing = source.length; // no `)` from here on: no key can close
      if (closing === source.length) continue;
      key = source.slice(start + 1, closing);
      start = closing + 1;
    }
    if (!specs.has(start)) specs.set(start, specAt(source, start));
    const spec = specs.get(start)!;
    if (spec === null) continue;
    let piece: string;
    if (spec.type === "%") piece = "%";
    else {
      const item = key !== undefined ? keyword(args, key, spec.type) : positional(args, next++);
      piece = percent(item, spec, source.slice(at, spec.end), budget);
    }
    budget.text(output.length + (at - position) + piece.length, "format()");
    output += source.slice(position, at) + piece;
    position = spec.end;
  }
  if (args.positional.length > next && args.keywords.size === 0) {
    throw new TemplateSandboxError("format(): not all arguments converted during string formatting");
  }
  return output + source.slice(position);
}

function keyword(args: Arguments, key: string, type: string): Value {
  if (!args.keywords.has(key)) throw new TemplateSandboxError(`format(): no value for "%(${key})${type}"`);
  return args.keywords.get(key);
}

function positional(args: Arguments, index: number): Value {
  if (index >= args.positional.length)
    throw new TemplateSandboxError("format(): not enough arguments for format string");
  return args.positional[index];
}

// [-+ 0#]* \d* (\.\d+)? [sdifFeExXor%] from `start`, or null where it does not match.
function specAt(source: string, start: number): Spec | null {
  let position = start;
  while (position < source.length && FLAGS.includes(source[position]!)) position += 1;
  const flags = source.slice(start, position);
  const widthStart = position;
  while (/\d/.test(source[position] ?? "")) position += 1;
  const width = position === widthStart ? 0 : Number(source.slice(widthStart, position));
  let precision: number | undefined;
  if (source[position] === "." && /\d/.test(source[position + 1] ?? "")) {
    const precisionStart = (position += 1);
    while (/\d/.test(source[position] ?? "")) position += 1;
    precision = Number(source.slice(precisionStart, position));
  }
  const type = source[position];
  if (type === undefined || !TYPES.includes(type)) return null;
  return { flags, width, precision, type, end: position + 1 };
}

function percent(item: Value, spec: Spec, whole: string, budget: RenderBudget): string {
  const { flags, width, precision, type } = spec;
  budget.text(width, `format(): the width of "${whole}"`);
  if (precision !== undefined && precision > 100 && type !== "s") {
    throw new TemplateSandboxError(`format(): precision ${precision} in "${whole}" is over 100`);
  }
  let output: string;
  const number = type === "s" || type === "r" ? 0 : numeric(item, `format() %${type}`);
  const sign = (digits: string) =>
    number >= 0 && flags.includes("+") ? `+${digits}` : number >= 0 && flags.includes(" ") ? ` ${digits}` : digits;
  switch (type) {
    case "s":
      output = pythonStr(item);
      if (precision !== undefined) output = output.slice(0, precision);
      break;
    case "r":
      output = typeof item === "string" ? `'${item.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'` : pythonStr(item);
      break;
    case "d":
    case "i":
      if (!Number.isFinite(number)) throw new TemplateSandboxError(`format(): %${type} format: a number is required`);
      output = sign(String(Math.trunc(number)));
      break;
    case "f":
    case "F":
      output = sign(number.toFixed(precision ?? 6));
      break;
    case "e":
    case "E":
      // Python writes at least two exponent digits: 1.5e+03, not 1.5e+3.
      output = sign(number.toExponential(precision ?? 6).replace(/e([+-])(\d)$/, "e$10$2"));
      if (type === "E") output = output.toUpperCase();
      break;
    default: {
      const digits = Math.trunc(Math.abs(number)).toString(type === "o" ? 8 : 16);
      const prefix = flags.includes("#") ? (type === "o" ? "0o" : type === "X" ? "0X" : "0x") : "";
      output = sign((number < 0 ? "-" : "") + prefix + (type === "X" ? digits.toUpperCase() : digits));
    }
  }
  return padded(output, flags, width, type);
}

function padded(output: string, flags: string, width: number, type: string): string {
  if (output.length >= width) return output;
  if (flags.includes("-")) return output.padEnd(width);
  if (flags.includes("0") && type !== "s" && type !== "r") {
    const signed = /^[+\- ]/.test(output) ? output[0]! : "";
    return signed + output.slice(signed.length).padStart(width - signed.length, "0");
  }
  return output.padStart(width);
}

/** str() of a value as Python prints it, for the JSON values a template holds. */
export function pythonStr(value: Value): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  return text(value);
}
