/** ChatRequest to the prompt and tools of an AI SDK call (LanguageModelV4CallOptions), with what the mapping changed. */
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4ToolChoice,
  SharedV4ProviderOptions,
} from "@ai-sdk/provider";
import type { AssistantMessage, ContentPart, Message, ToolDef, UserMessage } from "../../ports/messages.js";
import { unparsedArguments } from "../../ports/tool-arguments.js";
import type { ResolvedOptions, ToolChoice } from "./options.js";

/** Where the prompt-caching option marks a breakpoint: Anthropic's ephemeral cache. */
const CACHE_POINT: SharedV4ProviderOptions = { anthropic: { cacheControl: { type: "ephemeral" } } };

/** A request mapped to the call's options, and what the mapping changed. */
export interface MappedCall {
  call: LanguageModelV4CallOptions;
  changes: string[];
}

/** Map a request and the adapter's options to the options of one call. */
export function mapCall(messages: readonly Message[], tools: readonly ToolDef[], options: ResolvedOptions): MappedCall {
  const changes: string[] = [];
  if (messages.some((message) => message.role === "assistant" && message.reasoning !== null)) {
    // Providers take reasoning back only with the signature they issued, which a ChatRequest does not keep.
    changes.push("reasoning dropped: the provider takes back only reasoning it signed");
  }
  const names = toolNames(messages);
  const prompt = messages.map((message) => toMessage(message, names));
  if (options.promptCaching) markCachePoints(prompt, changes);
  const call: LanguageModelV4CallOptions = { prompt, ...options.settings };
  if (tools.length > 0) {
    call.tools = tools.map(toTool);
    call.toolChoice = toolChoiceOf(options.toolChoice);
  }
  if (options.reasoning !== null) call.reasoning = options.reasoning;
  if (Object.keys(options.providerOptions).length > 0) call.providerOptions = options.providerOptions;
  return { call, changes };
}

// A tool result names its call by id alone; the provider interface wants the tool's name too.
function toolNames(messages: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages)
    if (message.role === "assistant") for (const call of message.toolCalls) names.set(call.id, call.name);
  return names;
}

function toMessage(message: Message, names: ReadonlyMap<string, string>): LanguageModelV4Message {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content };
    case "user":
      return toUserMessage(message);
    case "assistant":
      return toAssistantMessage(message);
    case "tool":
      return {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: message.toolCallId,
            toolName: names.get(message.toolCallId) ?? "unknown",
            output: { type: "text", value: message.content },
          },
        ],
      };
  }
}

function toUserMessage(message: UserMessage): LanguageModelV4Message {
  const parts: ContentPart[] =
    typeof message.content === "string" ? [{ kind: "text", text: message.content }] : message.content;
  return {
    role: "user",
    content: parts.map((part) =>
      part.kind === "text"
        ? { type: "text" as const, text: part.text }
        : { type: "file" as const, data: { type: "data" as const, data: part.data }, mediaType: part.mime },
    ),
  };
}

// Arguments that did not parse go back as the text the model wrote, so it sees its own mistake.
function toAssistantMessage(message: AssistantMessage): LanguageModelV4Message {
  const content: Extract<LanguageModelV4Message, { role: "assistant" }>["content"] = [];
  if (message.content !== "") content.push({ type: "text", text: message.content });
  for (const call of message.toolCalls) {
    const input = unparsedArguments(call.arguments) ?? call.arguments;
    content.push({ type: "tool-call", toolCallId: call.id, toolName: call.name, input });
  }
  return { role: "assistant", content };
}

// The system prompt and the last message: the prefix that the next call of the thread shares.
function markCachePoints(prompt: LanguageModelV4Message[], changes: string[]): void {
  const marked = new Set([prompt.findIndex((message) => message.role === "system"), prompt.length - 1]);
  for (const index of marked) if (index >= 0) prompt[index] = { ...prompt[index]!, providerOptions: CACHE_POINT };
  changes.push("cache points: the system prompt and the last message");
}

// `elements` and `results` are the runtime's own: the model never sees them.
function toTool(tool: ToolDef): LanguageModelV4FunctionTool {
  return {
    type: "function",
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters as LanguageModelV4FunctionTool["inputSchema"],
  };
}

function toolChoiceOf(choice: ToolChoice): LanguageModelV4ToolChoice {
  return typeof choice === "object" ? { type: "tool", toolName: choice.toolName } : { type: choice };
}
