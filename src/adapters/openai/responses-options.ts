/** The options of OpenAIResponsesModel, with their defaults and their checks. */
import { ValueError } from "../../domain/errors.js";
import type { JsonValue } from "../../domain/json.js";

/** Whether a call asks for the encrypted content of its reasoning items, so the next call can send them back. */
export type EncryptedReasoning = boolean | "auto";

/** The options of OpenAIResponsesModel. */
export interface OpenAIResponsesModelOptions {
  /** The model a call goes to when it names none, such as "gpt-5" or "gpt-4.1". */
  model: string;
  /**
   * Everything else the call sends, such as `reasoning: { effort: "low", summary: "auto" }`, `max_output_tokens`,
   * `tool_choice` or `temperature`. Default `{ store: false }`: the context is sent whole on each call, and
   * nothing is kept at OpenAI. The adapter owns `model`, `input`, `tools`, `stream` and `previous_response_id`.
   */
  settings?: Record<string, JsonValue>;
  /**
   * Whether a call adds "reasoning.encrypted_content" to `include`, so that its reasoning items are recorded
   * and sent back with the calls that follow (the stateless use the API documents for `store: false`).
   * Default "auto": for OpenAI's reasoning models (o1, o3, o4, gpt-5 and codex families), whose name the call
   * goes to starts so; the other models refuse the field.
   */
  encryptedReasoning?: EncryptedReasoning;
}

/** The options with defaults applied. */
export type ResolvedResponsesOptions = Required<OpenAIResponsesModelOptions>;

const DEFAULTS = { settings: { store: false }, encryptedReasoning: "auto" } as const;
const OWNED_SETTINGS = ["model", "input", "tools", "stream", "previous_response_id"];
// The reasoning models of OpenAI, by the start of their names (a date or size may follow).
const REASONING_MODELS = /^(o\d|gpt-5|codex)/;

/** Apply the defaults and check the options, so a bad configuration fails before any call. */
export function resolveResponsesOptions(options: OpenAIResponsesModelOptions): ResolvedResponsesOptions {
  if (typeof options?.model !== "string" || options.model.trim() === "") {
    throw new ValueError('OpenAIResponsesModel needs a model: pass { model: "<the model\'s name>" }, such as "gpt-5".');
  }
  const settings = options.settings ?? {};
  if (settings === null || typeof settings !== "object" || Array.isArray(settings)) {
    throw new ValueError(
      "OpenAIResponsesModel settings must be an object of request fields, such as { store: false }.",
    );
  }
  const owned = Object.keys(settings).filter((key) => OWNED_SETTINGS.includes(key));
  if (owned.length > 0) {
    throw new ValueError(
      `OpenAIResponsesModel settings cannot hold ${owned.join(", ")}: the adapter sets them itself. Remove them from settings.`,
    );
  }
  if (settings.include !== undefined && !isTextList(settings.include)) {
    throw new ValueError(
      'OpenAIResponsesModel settings.include must be a list of texts, such as ["message.output_text.logprobs"].',
    );
  }
  const encryptedReasoning = options.encryptedReasoning ?? DEFAULTS.encryptedReasoning;
  if (encryptedReasoning !== true && encryptedReasoning !== false && encryptedReasoning !== "auto") {
    throw new ValueError(
      `OpenAIResponsesModel encryptedReasoning must be true, false or "auto", not ${JSON.stringify(encryptedReasoning)}.`,
    );
  }
  return { model: options.model, settings: { ...DEFAULTS.settings, ...settings }, encryptedReasoning };
}

/** The settings a call to `model` sends: the options' settings, with the encrypted reasoning asked for when it applies. */
export function callSettings(options: ResolvedResponsesOptions, model: string): Record<string, JsonValue> {
  const wanted =
    options.encryptedReasoning === "auto" ? REASONING_MODELS.test(model) : options.encryptedReasoning === true;
  const include = (options.settings.include ?? []) as string[];
  if (!wanted || include.includes(ENCRYPTED_REASONING)) return { model, ...options.settings };
  return { model, ...options.settings, include: [...include, ENCRYPTED_REASONING] };
}

const ENCRYPTED_REASONING = "reasoning.encrypted_content";

function isTextList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}
