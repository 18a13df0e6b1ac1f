/**
 * The interpreter of prompt templates: it walks the syntax tree (jinja-syntax.ts) and evaluates each node
 * itself. No template text ever becomes JavaScript source: names are keys of the interpreter's own Maps,
 * values are its own (jinja-values.ts), a member read finds only what a dict holds or an allow-listed
 * method, and a call reaches only a Callable the interpreter made (filters, tests, macros, `range`).
 * Semantics follow the nunjucks engine it replaces, so that prompt files render as before.
 */
import { applyFilter, applyTest, member } from "./jinja-filters.js";
import { childrenOf, isNode, type JinjaNode } from "./jinja-syntax.js";
import {
  Callable,
  equal,
  fromHost,
  isDict,
  less,
  NO_ARGUMENTS,
  numeric,
  text,
  truthy,
  typeName,
  type Arguments,
  type Dict,
  type Value,
} from "./jinja-values.js";
import { RENDER_BUDGET, RenderBudget, safeRange, TemplateSandboxError } from "./sandbox.js";

/** An error of a template at render time (an undefined value output, a call of a non-function), with its line. */
export class TemplateRenderError extends TemplateSandboxError {}

// A scope of the render: a loop, a block, a macro. Writes may go up to an enclosing frame, as in nunjucks.
class Frame {
  readonly variables = new Map<string, Value>();
  constructor(
    readonly parent: Frame | null,
    readonly isolated: boolean,
  ) {}

  lookup(name: string): Value | typeof MISSING {
    if (this.variables.has(name)) return this.variables.get(name);
    return this.parent === null ? MISSING : this.parent.lookup(name);
  }

  set(name: string, value: Value): void {
    if (!this.assign(name, value)) this.variables.set(name, value);
  }

  // Assign where the name is held already, up to an isolated frame; false when none holds it.
  private assign(name: string, value: Value): boolean {
    if (this.variables.has(name)) {
      this.variables.set(name, value);
      return true;
    }
    return !this.isolated && this.parent !== null && this.parent.assign(name, value);
  }
}

const MISSING = Symbol("missing");

/** What one render reads: the template's tree, the templates it may extend, and the variables. */
export interface RenderInput {
  /** The tree of the template to render. */
  readonly tree: JinjaNode;
  /** Templates that an `extends` may name, by name. */
  readonly templates: ReadonlyMap<string, JinjaNode>;
  /** The render's variables, host data: converted to template values first. */
  readonly variables: Readonly<Record<string, unknown>>;
}

/** Render a template within a fresh budget. Throws TemplateSandboxError (or TemplateRenderError) with the line. */
export function renderTree(input: RenderInput): string {
  const budget = new RenderBudget();
  const context = new Map<string, Value>();
  for (const [name, value] of Object.entries(input.variables)) context.set(name, fromHost(value, name, budget));
  return new Render(budget, context, input.templates).root(input.tree);
}

// One render: its budget, its context (variables and top-level sets), the blocks of its templates.
class Render {
  private readonly blocks = new Map<string, JinjaNode[]>();
  private readonly blockStack: { name: string; index: number }[] = [];
  private depth = 0;
  // Whether the template being run extends another: its blocks then render in the base, not here.
  private inChild = false;
  private readonly globals: ReadonlyMap<string, Value>;

  constructor(
    private readonly budget: RenderBudget,
    private readonly context: Map<string, Value>,
    private readonly templates: ReadonlyMap<string, JinjaNode>,
  ) {
    this.globals = globalsOf(budget);
  }

  root(tree: JinjaNode): string {
    const chain: JinjaNode[] = [];
    const frame = new Frame(null, false);
    let current: JinjaNode | undefined = tree;
    let output = "";
    while (current !== undefined) {
      chain.push(current);
      if (chain.length > 8) throw new TemplateSandboxError("templates extend each other more than 8 deep");
      for (const block of blocksOf(current)) this.blockList(symbolName(block.name as JinjaNode)).push(block);
      const parent = extendsOf(current);
      this.inChild = parent !== undefined;
      if (parent === undefined) {
        output = this.statements(childrenOf(current), frame);
        break;
      }
      this.statements(childrenOf(current), frame); // a child's own output is dropped, as Jinja drops it
      const name = String(this.evaluate(parent.template as JinjaNode, frame));
      current = this.templates.get(name);
      if (current === undefined) throw new TemplateSandboxError(`no template named "${name}" to extend`);
    }
    return output;
  }

  private blockList(name: string): JinjaNode[] {
    let list = this.blocks.get(name);
    if (list === undefined) this.blocks.set(name, (list = []));
    return list;
  }

  private statements(nodes: readonly JinjaNode[], frame: Frame): string {
    let output = "";
    for (const node of nodes) output = this.joined(output, this.statement(node, frame));
    return output;
  }

  private joined(left: string, right: string): string {
    if (right === "") return left;
    this.budget.text(left.length + right.length, "the template");
    return left + right;
  }

  private statement(node: JinjaNode, frame: Frame): string {
    this.budget.step();
    switch (node.typename) {
      case "Output":
        return this.output(node, frame);
      case "TemplateData":
        return String(node.value);
      case "If":
        return this.statementsOf(truthy(this.evaluate(node.cond, frame)) ? node.body : node.else_, frame);
      case "For":
        return this.loop(node, frame);
      case "Set":
        return this.set(node, frame);
      case "Macro":
        this.define(String((node.name as JinjaNode).value), this.macro(node, null), frame);
        return "";
      case "Block":
        return this.inChild ? "" : this.block(String((node.name as JinjaNode).value), 0, frame);
      case "Switch":
        return this.switch(node, frame);
      case "Extends":
        return "";
      case "NodeList":
      case "Root":
        return this.statements(childrenOf(node), frame);
      default:
        throw this.error(node, `a ${node.typename} is no statement`);
    }
  }

  private statementsOf(value: unknown, frame: Frame): string {
    if (!isNode(value)) return "";
    return value.typename === "If" ? this.statement(value, frame) : this.statements(childrenOf(value), frame);
  }

  private output(node: JinjaNode, frame: Frame): string {
    let output = "";
    for (const child of childrenOf(node)) {
      let part: string;
      if (child.typename === "TemplateData") part = String(child.value);
      else {
        const value = this.evaluate(child, frame);
        if (value === undefined || value === null)
          throw this.error(child, "attempted to output null or undefined value");
        part = text(value);
      }
      this.budget.emit(part.length);
      output = this.joined(output, part);
    }
    return output;
  }

  private loop(node: JinjaNode, frame: Frame): string {
    const iterable = this.evaluate(node.arr, frame);
    const names = isNode(node.name) && node.name.typename === "Array" ? childrenOf(node.name).map(symbolName) : null;
    const rows = loopRows(iterable, names);
    if (rows.length === 0) return this.statementsOf(node.else_, frame);
    const inner = new Frame(frame, false);
    let output = "";
    rows.forEach((row, index) => {
      this.budget.step();
      if (names === null) inner.variables.set(symbolName(node.name as JinjaNode), row[0]);
      else names.forEach((name, at) => inner.variables.set(name, row[at]));
      inner.variables.set("loop", loopVariable(index, rows.length));
      output = this.joined(output, this.statements(childrenOf(node.body), inner));
    });
    return output;
  }

  private set(node: JinjaNode, frame: Frame): string {
    const value = isNode(node.body)
      ? this.statements(childrenOf(node.body.body), frame)
      : this.evaluate(node.value as JinjaNode, frame);
    for (const target of childrenOf(node.targets)) this.define(symbolName(target), value, frame);
    return "";
  }

  // A top-level name goes to the context too, where blocks and macros find it.
  private define(name: string, value: Value, frame: Frame): void {
    frame.set(name, value);
    if (frame.parent === null && !frame.isolated) this.context.set(name, value);
  }

  private switch(node: JinjaNode, frame: Frame): string {
    const value = this.evaluate(node.expr, frame);
    const cases = childrenOf(node.cases);
    const start = cases.findIndex((item) => this.evaluate(item.cond, frame) === value);
    if (start === -1) return this.statementsOf(node.default, frame);
    for (const item of cases.slice(start)) {
      if (childrenOf(item.body).length > 0) return this.statementsOf(item.body, frame);
    }
    return this.statementsOf(node.default, frame);
  }

  private block(name: string, index: number, frame: Frame): string {
    const node = this.blocks.get(name)?.[index];
    if (node === undefined) throw new TemplateSandboxError(`no block "${name}" to render (super() of the first?)`);
    this.enter();
    this.blockStack.push({ name, index });
    try {
      return this.statements(childrenOf(node.body), new Frame(frame, true));
    } finally {
      this.blockStack.pop();
      this.depth -= 1;
    }
  }

  private enter(): void {
    this.depth += 1;
    if (this.depth > RENDER_BUDGET.depth) {
      throw new TemplateSandboxError(`macros and blocks call each other deeper than ${RENDER_BUDGET.depth}`);
    }
  }

  private macro(node: JinjaNode, callerFrame: Frame | null): Callable {
    const name = isNode(node.name) ? String(node.name.value) : "caller";
    const positional: string[] = [];
    const defaults: [string, JinjaNode][] = [];
    for (const argument of childrenOf(node.args)) {
      if (argument.typename === "KeywordArgs") {
        for (const pair of childrenOf(argument))
          defaults.push([symbolName(pair.key as JinjaNode), pair.value as JinjaNode]);
      } else positional.push(symbolName(argument));
    }
    return new Callable(name, (args) => {
      const frame = callerFrame === null ? new Frame(null, true) : new Frame(callerFrame, true);
      const order = [...positional, ...defaults.map(([key]) => key)];
      order.forEach((key, index) => {
        if (index < args.positional.length) frame.variables.set(key, args.positional[index]);
      });
      for (const [key, value] of args.keywords) frame.variables.set(key, value);
      for (const [key, fallback] of defaults) {
        if (!frame.variables.has(key)) frame.variables.set(key, this.evaluate(fallback, frame));
      }
      for (const key of positional) if (!frame.variables.has(key)) frame.variables.set(key, undefined);
      this.enter();
      try {
        return this.statements(childrenOf(node.body), frame);
      } finally {
        this.depth -= 1;
      }
    });
  }

  /** Evaluate an expression node to a value. */
  evaluate(node: unknown, frame: Frame): Value {
    if (!isNode(node)) return undefined;
    this.budget.step();
    switch (node.typename) {
      case "Literal":
      case "TemplateData":
        return node.value as Value;
      case "Symbol":
        return this.lookup(String(node.value), frame);
      case "Group": {
        const values = childrenOf(node).map((child) => this.evaluate(child, frame));
        return values.at(-1);
      }
      case "Array":
        return childrenOf(node).map((child) => this.evaluate(child, frame));
      case "Dict":
        return this.dict(node, frame);
      case "LookupVal":
        return this.member(
          node,
          this.evaluate(node.target as JinjaNode, frame),
          this.evaluate(node.val as JinjaNode, frame),
        );
      case "InlineIf":
        if (truthy(this.evaluate(node.cond as JinjaNode, frame))) return this.evaluate(node.body as JinjaNode, frame);
        return isNode(node.else_) ? this.evaluate(node.else_, frame) : "";
      case "FunCall":
        return this.call(node, frame);
      case "Filter":
        return this.filter(node, frame);
      case "Caller":
        return this.macro(node, frame);
      case "Capture":
        return this.statements(childrenOf(node.body), frame);
      default:
        return this.operator(node, frame);
    }
  }

  private lookup(name: string, frame: Frame): Value {
    const found = frame.lookup(name);
    if (found !== MISSING) return found;
    if (this.context.has(name)) return this.context.get(name);
    return this.globals.get(name);
  }

  private dict(node: JinjaNode, frame: Frame): Dict {
    const dict: Dict = new Map();
    for (const pair of childrenOf(node)) {
      const key = pair.key as JinjaNode;
      const name =
        key.typename === "Symbol" || key.typename === "Literal" ? String(key.value) : text(this.evaluate(key, frame));
      dict.set(name, this.evaluate(pair.value as JinjaNode, frame));
    }
    return dict;
  }

  private member(node: JinjaNode, target: Value, key: Value): Value {
    try {
      return member(target, key);
    } catch (error) {
      throw this.located(node, error);
    }
  }

  private call(node: JinjaNode, frame: Frame): Value {
    const callee = node.name as JinjaNode;
    if (callee.typename === "Symbol" && callee.value === "super" && frame.lookup("super") === MISSING) {
      const current = this.blockStack.at(-1);
      if (current === undefined) throw this.error(node, "super() is called outside a block");
      return this.block(current.name, current.index + 1, frame);
    }
    const value = this.evaluate(callee, frame);
    if (!(value instanceof Callable)) {
      throw this.error(node, `${describe(callee)} is a ${typeName(value)}, not a function: it cannot be called`);
    }
    const args = this.arguments(childrenOf(node.args), frame);
    this.budget.step();
    try {
      return value.invoke(args, this.budget);
    } catch (error) {
      throw this.located(node, error);
    }
  }

  private filter(node: JinjaNode, frame: Frame): Value {
    const [target, ...rest] = childrenOf(node.args);
    const input = this.evaluate(target, frame);
    const args = this.arguments(rest, frame);
    try {
      return applyFilter(symbolName(node.name as JinjaNode), input, args, this.budget);
    } catch (error) {
      throw this.located(node, error);
    }
  }

  private arguments(nodes: readonly JinjaNode[], frame: Frame): Arguments {
    if (nodes.length === 0) return NO_ARGUMENTS;
    const positional: Value[] = [];
    const keywords = new Map<string, Value>();
    for (const node of nodes) {
      if (node.typename !== "KeywordArgs") positional.push(this.evaluate(node, frame));
      else
        for (const pair of childrenOf(node))
          keywords.set(symbolName(pair.key as JinjaNode), this.evaluate(pair.value as JinjaNode, frame));
    }
    return { positional, keywords };
  }

  private operator(node: JinjaNode, frame: Frame): Value {
    const left = () => this.evaluate(node.left as JinjaNode, frame);
    const right = () => this.evaluate(node.right as JinjaNode, frame);
    switch (node.typename) {
      case "Or": {
        const value = left();
        return truthy(value) ? value : right();
      }
      case "And": {
        const value = left();
        return truthy(value) ? right() : value;
      }
      case "Not":
        return !truthy(this.evaluate(node.target as JinjaNode, frame));
      case "Neg":
        return -numeric(this.evaluate(node.target as JinjaNode, frame), "-");
      case "Pos":
        return +numeric(this.evaluate(node.target as JinjaNode, frame), "+");
      case "In":
        return contains(right(), left());
      case "Is":
        return this.test(node, left(), frame);
      case "Compare":
        return this.compare(node, frame);
      case "Concat":
        return this.concat(text(left()), text(right()));
      case "Add":
        return this.add(left(), right());
      default:
        return this.arithmetic(node, left(), right());
    }
  }

  private test(node: JinjaNode, value: Value, frame: Frame): Value {
    const right = node.right as JinjaNode;
    const name = right.typename === "FunCall" ? symbolName(right.name as JinjaNode) : symbolName(right);
    const args = right.typename === "FunCall" ? this.arguments(childrenOf(right.args), frame) : NO_ARGUMENTS;
    try {
      return applyTest(name, value, args);
    } catch (error) {
      throw this.located(node, error);
    }
  }

  // nunjucks compared left to right as JavaScript does: `a < b < c` is `(a < b) < c`.
  private compare(node: JinjaNode, frame: Frame): boolean {
    let value: Value = this.evaluate(node.expr as JinjaNode, frame);
    for (const operand of childrenOf(node.ops)) {
      const right = this.evaluate(operand.expr as JinjaNode, frame);
      value = compared(String(operand.type), value, right);
    }
    return value as boolean;
  }

  private concat(left: string, right: string): string {
    this.budget.text(left.length + right.length, "~");
    return left + right;
  }

  private add(left: Value, right: Value): Value {
    const numberLike = (value: Value) => typeof value === "number" || typeof value === "boolean" || value === null;
    if (numberLike(left) && numberLike(right)) return numeric(left, "+") + numeric(right, "+");
    return this.concat(text(left), text(right));
  }

  private arithmetic(node: JinjaNode, leftValue: Value, rightValue: Value): number {
    const left = numeric(leftValue, node.typename);
    const right = numeric(rightValue, node.typename);
    switch (node.typename) {
      case "Sub":
        return left - right;
      case "Mul":
        return left * right;
      case "Div":
        return left / right;
      case "FloorDiv":
        return Math.floor(left / right);
      case "Mod":
        return left % right;
      case "Pow":
        return left ** right;
      default:
        throw this.error(node, `a ${node.typename} is no expression`);
    }
  }

  private error(node: JinjaNode, message: string): TemplateRenderError {
    return new TemplateRenderError(`${message} (line ${node.lineno + 1}, column ${node.colno + 1})`);
  }

  private located(node: JinjaNode, error: unknown): unknown {
    if (!(error instanceof TemplateSandboxError) || /\(line \d+, column \d+\)$/.test(error.message)) return error;
    const located = new TemplateSandboxError(`${error.message} (line ${node.lineno + 1}, column ${node.colno + 1})`);
    return located;
  }
}

function symbolName(node: JinjaNode): string {
  return String(node.value);
}

function describe(node: JinjaNode): string {
  if (node.typename === "Symbol") return `"${String(node.value)}"`;
  if (node.typename === "LookupVal" && isNode(node.val)) return `"${String(node.val.value)}"`;
  return "the value";
}

function blocksOf(tree: JinjaNode): JinjaNode[] {
  const found: JinjaNode[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!isNode(value)) return;
    if (value.typename === "Block") found.push(value);
    for (const field of value.fields) visit(value[field]);
    if (!value.fields.includes("children")) visit(value.children);
  };
  visit(tree);
  return found;
}

function extendsOf(tree: JinjaNode): JinjaNode | undefined {
  return childrenOf(tree).find((node) => node.typename === "Extends");
}

// The rows of a loop: each row the values of the loop's names (one name: a row of one).
function loopRows(iterable: Value, names: readonly string[] | null): Value[][] {
  if (typeof iterable === "string") return [...iterable].map((character) => [character]);
  if (Array.isArray(iterable)) {
    if (names === null) return iterable.map((item) => [item]);
    return iterable.map((item) => names.map((_, index) => member(item, index)));
  }
  if (isDict(iterable) && names !== null) return [...iterable.entries()].map(([key, value]) => [key, value]);
  return [];
}

function loopVariable(index: number, length: number): Dict {
  return new Map<string, Value>([
    ["index", index + 1],
    ["index0", index],
    ["revindex", length - index],
    ["revindex0", length - index - 1],
    ["first", index === 0],
    ["last", index === length - 1],
    ["length", length],
  ]);
}

function contains(container: Value, item: Value): boolean {
  if (Array.isArray(container)) return container.some((value) => value === item);
  if (typeof container === "string") return container.includes(text(item));
  if (isDict(container)) return container.has(text(item));
  throw new TemplateSandboxError(`"in" needs a list, a text or a dict on its right, not a ${typeName(container)}`);
}

function compared(operator: string, left: Value, right: Value): boolean {
  switch (operator) {
    case "==":
      return equal(left, right);
    case "!=":
      return !equal(left, right);
    case "===":
      return left === right;
    case "!==":
      return left !== right;
    case "<":
      return less(left, right);
    case ">":
      return less(right, left);
    case "<=":
      return !less(right, left);
    default:
      return !less(left, right);
  }
}

// The names every template can read: range, cycler and joiner, as nunjucks has them.
function globalsOf(budget: RenderBudget): ReadonlyMap<string, Value> {
  const number = (value: Value, what: string) => numeric(value, what);
  return new Map<string, Value>([
    [
      "range",
      new Callable("range", ({ positional: [start, stop, step] }) =>
        safeRange(
          budget,
          number(start, "range"),
          stop === undefined ? undefined : number(stop, "range"),
          step === undefined ? 1 : number(step, "range"),
        ),
      ),
    ],
    ["cycler", new Callable("cycler", ({ positional }) => cycler([...positional]))],
    [
      "joiner",
      new Callable("joiner", ({ positional: [separator] }) => joiner(separator === undefined ? "," : text(separator))),
    ],
  ]);
}

function cycler(items: Value[]): Dict {
  let position = -1;
  const state: Dict = new Map();
  state.set("current", null);
  state.set(
    "next",
    new Callable("next", () => {
      position = (position + 1) % Math.max(items.length, 1);
      state.set("current", items[position]);
      return items[position];
    }),
  );
  state.set(
    "reset",
    new Callable("reset", () => {
      position = -1;
      state.set("current", null);
      return "";
    }),
  );
  return state;
}

function joiner(separator: string): Callable {
  let first = true;
  return new Callable("joiner", () => {
    if (!first) return separator;
    first = false;
    return "";
  });
}
