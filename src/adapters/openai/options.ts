/** The options of OpenAIChatModel, with their defaults and their checks. */
import { ValueError } from "../../domain/errors.js";
import type { JsonValue } from "../../domain/json.js";
import type { ReasoningField } from "./request-mapping.js";

/** The options of OpenAIChatModel. */
export interface OpenAIChatModelOptions {
  /** The model a call goes to when it names none, as the endpoint knows it. */
  model: string;
  /**
   * Everything else the call sends, such as `temperature`, `max_completion_tokens` or `reasoning_effort`.
   * The adapter owns `model`, `messages`, `tools`, `stream`, `stream_options` and `n`.
   */
  settings?: Record<string, JsonValue>;
  /**
   * The field that sends an earlier output's reasoning back, for the compatible servers that take one
   * (`reasoning_content` or `reasoning`). The default null drops it: the official API has no such field,
   * and some servers refuse the request when it is there.
   */
  reasoningField?: ReasoningField;
}

/** The options with defaults applied. */
export type ResolvedOptions = Required<OpenAIChatModelOptions>;

const DEFAULTS = { settings: {}, reasoningField: null } as const;
const OWNED_SETTINGS = ["model", "messages", "tools", "stream", "stream_options", "n"];
const REASONING_FIELDS: readonly ReasoningField[] = ["reasoning_content", "reasoning", null];

/** Apply the defaults and check the options, so a bad configuration fails before any call. */
export function resolveOptions(options: OpenAIChatModelOptions): ResolvedOptions {
  if (typeof options?.model !== "string" || options.model.trim() === "") {
    throw new ValueError('OpenAIChatModel needs a model: pass { model: "<the model\'s name at the endpoint>" }.');
  }
  const settings = options.settings ?? DEFAULTS.settings;
  if (settings === null || typeof settings !== "object" || Array.isArray(settings)) {
    throw new ValueError("OpenAIChatModel settings must be an object of request fields, such as { temperature: 0 }.");
  }
  const owned = Object.keys(settings).filter((key) => OWNED_SETTINGS.includes(key));
  if (owned.length > 0) {
    throw new ValueError(
      `OpenAIChatModel settings cannot hold ${owned.join(", ")}: the adapter sets them itself. Remove them from settings.`,
    );
  }
  try {
    JSON.stringify(settings);
  } catch (error) {
    throw new ValueError("OpenAIChatModel settings must be JSON values.", { cause: error });
  }
  const reasoningField = options.reasoningField ?? DEFAULTS.reasoningField;
  if (!REASONING_FIELDS.includes(reasoningField)) {
    throw new ValueError(
      `OpenAIChatModel reasoningField must be "reasoning_content", "reasoning" or null, not ${JSON.stringify(reasoningField)}.`,
    );
  }
  return { model: options.model, settings: { ...settings }, reasoningField };
}
