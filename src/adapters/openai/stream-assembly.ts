/** Streamed chat-completions chunks assembled into fragments as they arrive, and one output at the end. */
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { ModelOutput } from "../../domain/events.js";
import { ReasoningDelta, type Fragment } from "../../ports/model.js";
import { outputOf, reasoningOf, type CallFacts, type RawToolCall } from "./response-mapping.js";

/** The state of one streamed response: text, reasoning, tool calls by index, finish reason and usage. */
export class StreamAssembly {
  private content = "";
  private reasoning = "";
  private readonly toolCalls = new Map<number, RawToolCall>();
  private finishReason: string | null = null;
  private usage: ChatCompletionChunk["usage"] = null;

  /** Whether a chunk gave the finish reason: only then is the output complete. */
  get finished(): boolean {
    return this.finishReason !== null;
  }

  /** Take one chunk, and return its fragments in the order the chunk holds them (reasoning, then text). */
  add(chunk: ChatCompletionChunk): Fragment[] {
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (choice === undefined) return [];
    const fragments: Fragment[] = [];
    const delta = choice.delta ?? {};
    const reasoning = reasoningOf(delta);
    if (reasoning !== null) {
      this.reasoning += reasoning;
      fragments.push(new ReasoningDelta(reasoning));
    }
    if (typeof delta.content === "string" && delta.content !== "") {
      this.content += delta.content;
      fragments.push(delta.content);
    }
    for (const piece of delta.tool_calls ?? []) this.addToolCall(piece);
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return fragments;
  }

  /** The complete output, once `finished`. */
  output(facts: CallFacts): ModelOutput {
    return outputOf(
      {
        content: this.content,
        reasoning: this.reasoning,
        toolCalls: [...this.toolCalls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call),
        finishReason: this.finishReason,
        usage: this.usage,
      },
      facts,
    );
  }

  // The id and name arrive whole in the first delta of a call (some servers repeat them): keep the first.
  private addToolCall(piece: ChatCompletionChunk.Choice.Delta.ToolCall): void {
    const call = this.toolCalls.get(piece.index) ?? { id: "", name: "", arguments: "" };
    if (call.id === "" && piece.id) call.id = piece.id;
    if (call.name === "" && piece.function?.name) call.name = piece.function.name;
    if (piece.function?.arguments) call.arguments += piece.function.arguments;
    this.toolCalls.set(piece.index, call);
  }
}
