/**
 * Jinja's `wordwrap(width=79, break_long_words=True, wrapstring=None, break_on_hyphens=True)`: each line of
 * the text wrapped as Python's textwrap wraps it (whitespace kept inside lines, dropped at the breaks), the
 * lines joined with `wrapstring` (default a newline). Each line made counts a step; the output's size is
 * stated to the budget before it is joined.
 */
import { text, numeric, truthy, type Arguments, type Value } from "./jinja-values.js";
import { RenderBudget, TemplateSandboxError } from "./sandbox.js";

const NAMES = ["width", "break_long_words", "wrapstring", "break_on_hyphens"] as const;

/** `value | wordwrap(...)`. */
export function wordwrap(value: Value, args: Arguments, budget: RenderBudget): string {
  const option = (index: number) => {
    const name = NAMES[index]!;
    return args.keywords.has(name) ? args.keywords.get(name) : args.positional[index];
  };
  const width = numeric(option(0) ?? 79, "wordwrap()");
  const breakLongWords = option(1) === undefined ? true : truthy(option(1));
  const wrapstring = option(2) === undefined || option(2) === null ? "\n" : text(option(2));
  const breakOnHyphens = option(3) === undefined ? true : truthy(option(3));
  if (!(width > 0)) throw new TemplateSandboxError(`wordwrap(): invalid width ${width} (must be > 0)`);
  const source = text(value);
  const lines = source.split(/\r\n|\r|\n/);
  if (lines.at(-1) === "") lines.pop(); // str.splitlines() makes no empty last line
  const wrapped = lines.flatMap((line) => wrapLine(line, width, breakLongWords, breakOnHyphens, budget));
  budget.text(source.length + wrapped.length * wrapstring.length, "wordwrap()");
  return wrapped.join(wrapstring);
}

// textwrap.TextWrapper._wrap_chunks, with expand_tabs=False, replace_whitespace=False, drop_whitespace=True.
function wrapLine(
  text: string,
  width: number,
  breakLongWords: boolean,
  hyphens: boolean,
  budget: RenderBudget,
): string[] {
  const chunks = text
    .split(/(\s+)/)
    .filter((chunk) => chunk !== "")
    .flatMap((chunk) => (hyphens && !/^\s/.test(chunk) ? chunk.split(/(?<=\w-)(?=\w)/) : [chunk]))
    .reverse();
  const lines: string[] = [];
  while (chunks.length > 0) {
    budget.step();
    const line: string[] = [];
    let length = 0;
    if (chunks.at(-1)!.trim() === "" && lines.length > 0) chunks.pop();
    while (chunks.length > 0 && length + chunks.at(-1)!.length <= width) {
      length += chunks.at(-1)!.length;
      line.push(chunks.pop()!);
    }
    if (chunks.length > 0 && chunks.at(-1)!.length > width) {
      if (breakLongWords) {
        const room = Math.max(width - length, 1);
        const long = chunks.pop()!;
        line.push(long.slice(0, room));
        chunks.push(long.slice(room));
      } else if (line.length === 0) {
        line.push(chunks.pop()!);
      }
    }
    if (line.length > 0 && line.at(-1)!.trim() === "") line.pop();
    if (line.length > 0) lines.push(line.join(""));
  }
  return lines;
}
