/**
 * One tool call, as the tool step runs it: every check that can refuse the call comes before the tool
 * runs, and each refusal is a result the model reads, so it can call again better. Errors of the code
 * (the caller's) and of the outside world that may heal propagate to the runner.
 */
import type { z } from "zod";
import type { ElementType } from "../../domain/elements.js";
import { canonicalJson, type JsonValue } from "../../domain/json.js";
import { ToolOutput, type Event, type ToolCall } from "../../domain/events.js";
import { THREAD_NUMBERING, type Numbering } from "../../domain/numbering.js";
import { InvalidQueryError, ResourceUnavailableError } from "../../ports/errors.js";
import { unparsedArguments } from "../../ports/tool-arguments.js";
import type { Tool, ToolCallContext } from "../contracts.js";
import { THREAD_HANDLES, type Handles, article, idArguments, type IdArgument } from "./ids.js";
import { elementNumber } from "./arguments.js";
import { unboundError } from "./bound.js";
import { ToolReturnError, UnboundToolError } from "../errors.js";
import { callsBefore, settledResults } from "./turn.js";
import { approvalOf, askerOf, deniedText } from "./asking.js";

/**
 * Run one recorded call of `tool` (its arguments mapped to real ids by the LlmStep) and return its result,
 * with `callId` set. In order: arguments that do not parse or fit `tool.args`, an element id that names no
 * element of an accepted type in the thread, a handle that names no result, the tool's limit, and (unless
 * repeats) a call identical to an earlier successful call of the turn each give an error result, and the
 * tool does not run. A tool that needs approval waits for it next (AnswerPending propagates until a
 * Response is recorded); denied, the model reads why. InvalidQueryError and ResourceUnavailableError from
 * the tool become the error the model reads; every other error propagates (a TransientError so the runner
 * runs the call again; AnswerPending when the tool asked a person).
 */
export async function executeCall(tool: Tool, call: ToolCall, context: ToolCallContext): Promise<ToolOutput> {
  if (tool.unbound.length > 0) throw unboundError(tool.name, tool.unbound);
  const refused = (error: string): ToolOutput => ToolOutput({ callId: call.id, error });
  const unparsed = unparsedArguments(call.arguments);
  if (unparsed !== null) {
    return refused(
      `The arguments of ${tool.name} are not a JSON object: ${unparsed}. Call ${tool.name} again with its arguments as one JSON object.`,
    );
  }
  const ids = idArguments(tool.args);
  const parsed = tool.args.safeParse(withStringIds(call.arguments, ids));
  if (!parsed.success) return refused(misfit(tool.name, parsed.error));
  // The thread's indexes, kept as the trace grows: a call's checks do not read the whole thread again.
  const { thread } = context.trace;
  const handles = thread.index(THREAD_HANDLES);
  const wrongIds = idProblems(parsed.data as Record<string, unknown>, ids, thread.index(THREAD_NUMBERING), handles);
  if (wrongIds.length > 0) return refused(wrongIds.join(" "));
  const limited = tool.limit?.check(context.turn, call) ?? null;
  if (limited !== null) return refused(limited);
  if (!(tool.repeats ?? context.repeats ?? false)) {
    const earlier = earlierSuccess(context.turn, call);
    if (earlier) {
      const handle = handles.handleOf(earlier.id) ?? "an earlier result";
      return refused(
        `${tool.name} ran with these arguments before in this turn; its result is ${handle}. ` +
          `Use that result instead of calling again, or call ${tool.name} with other arguments.`,
      );
    }
  }
  // A person approves after every check that could refuse the call, so no one approves a call that cannot run.
  if (tool.needsApproval?.(parsed.data as Record<string, unknown>) === true) {
    const approval = approvalOf(context.turn, call);
    if (!approval.approved) return refused(deniedText(tool.name, approval));
  }
  let output: unknown;
  try {
    output = await tool.invoke(parsed.data as Record<string, unknown>, {
      ...context,
      ask: askerOf(context.turn, call.id, tool.name),
    });
  } catch (error) {
    if (InvalidQueryError.isInstance(error) || ResourceUnavailableError.isInstance(error))
      return refused(error.message);
    throw error;
  }
  if (!ToolOutput.is(output)) {
    throw new ToolReturnError(
      `Tool "${tool.name}" returned ${describe(output)}, not a ToolOutput: return ToolOutput({ ... }).`,
      { details: { tool: tool.name } },
    );
  }
  return { ...output, callId: call.id };
}

/**
 * Refuse tools with values that nothing bound. The runtime calls it when a turn starts, before the model
 * runs, so no model call is spent on a turn whose tools cannot run.
 */
export function checkBound(tools: readonly Pick<Tool, "name" | "unbound">[]): void {
  const refused = tools.filter((tool) => tool.unbound.length > 0);
  if (refused.length === 0) return;
  if (refused.length === 1) throw unboundError(refused[0]!.name, refused[0]!.unbound);
  const listed = refused.map((tool) => `"${tool.name}" (${tool.unbound.join(", ")})`).join(", ");
  throw new UnboundToolError(
    `Tools have values that nothing bound: ${listed}. Give them with each tool's bind({...}) before an agent uses it.`,
    {
      details: { tools: Object.fromEntries(refused.map((tool) => [tool.name, [...tool.unbound]])) },
    },
  );
}

/** The arguments with each id written as an integer read as digits: the JSON schema says string, but a model may write 5. */
export function withStringIds(
  args: Record<string, JsonValue>,
  ids: ReadonlyMap<string, IdArgument>,
): Record<string, JsonValue> {
  const asString = (value: JsonValue): JsonValue => (typeof value === "number" ? String(value) : value);
  const result = { ...args };
  for (const name of ids.keys()) {
    const value = result[name];
    if (value !== undefined) result[name] = Array.isArray(value) ? value.map(asString) : asString(value);
  }
  return result;
}

/** The error a model reads for arguments that do not fit the schema of the tool `name`. */
export function misfit(name: string, error: z.ZodError): string {
  const problems = error.issues.map(
    (issue) => `${issue.path.length > 0 ? issue.path.join(".") : "arguments"}: ${issue.message}`,
  );
  return `The arguments of ${name} do not fit its schema (${problems.join("; ")}). Call ${name} again with arguments that fit.`;
}

/** The errors of id arguments that name no element of an accepted type in the thread, or no result. */
export function idProblems(
  args: Record<string, unknown>,
  ids: ReadonlyMap<string, IdArgument>,
  numbering: Numbering,
  handles: Handles,
): string[] {
  const problems: string[] = [];
  for (const [name, argument] of ids) {
    const value = args[name];
    const values = Array.isArray(value) ? (value as unknown[]) : value === undefined || value === null ? [] : [value];
    for (const item of values) {
      const problem =
        argument.target.kind === "element"
          ? elementProblem(item, argument.target.type, numbering)
          : handleProblem(item, handles);
      if (problem !== null) problems.push(problem);
    }
  }
  return problems;
}

function elementProblem(value: unknown, type: ElementType<any, any>, numbering: Numbering): string | null {
  const id = String(value);
  const number = numbering.numberOf(id);
  if (number !== undefined && type.is(numbering.element(number))) return null;
  const written = elementNumber(id);
  const wanted = `${article(type.name)} ${type.name}`;
  if (written === undefined) return `"${id}" is not the number of ${wanted}. Use a number that a result showed.`;
  const named = numbering.element(written);
  if (named === undefined) return `No ${type.name} has the number ${written}. Use a number that a result showed.`;
  return `Number ${written} is ${article(named.type)} ${named.type}, not ${wanted}. Use the number of ${wanted} that a result showed.`;
}

function handleProblem(value: unknown, handles: Handles): string | null {
  const callId = String(value);
  if (handles.handleOf(callId) !== undefined) return null;
  return `No result has the handle "${callId}". Use a handle that a result showed, such as r1.`;
}

// The earlier call of the turn with the same name and arguments whose result was no error. Results of the
// call's siblings do not count: they run concurrently, so whether one is recorded yet is timing.
function earlierSuccess(turn: readonly Event[], call: ToolCall): ToolCall | undefined {
  const succeeded = new Set(
    settledResults(turn, call.id).flatMap((result) =>
      result.error === null && result.callId !== null ? [result.callId] : [],
    ),
  );
  const key = canonicalJson(call.arguments);
  return callsBefore(turn, call.id).find(
    (earlier) => earlier.name === call.name && succeeded.has(earlier.id) && canonicalJson(earlier.arguments) === key,
  );
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === "object") return `an object of type "${String((value as { type?: unknown }).type ?? "none")}"`;
  return `a ${typeof value}`;
}
