/**
 * The context windows and output limits of the known model families of each provider, found by a model's
 * name: the longest family name the model's name starts with. A ReActAgent takes the limits of its turn's
 * model from here when its config gives none; an unknown model keeps DEFAULT_LIMITS.
 */
import { DEFAULT_LIMITS, ModelLimits, Tokens } from "./limits.js";

/** One family: its window and the most tokens one call can write (null where the provider states none apart). */
export interface KnownLimits {
  window: number;
  output: number | null;
  /** Characters per token of the provider's tokenizer on English prose, lowered for a margin (bench/estimate.ts). */
  charactersPerToken: number;
}

// Measured in bench/estimate.ts on the tutorial threads, then lowered so the estimate counts more tokens than
// the provider does: OpenAI's o200k, with its chat format, 4.4 characters a token. The others' current
// tokenizers are not published (Claude 2's gives 4.3, and Claude 3 and later count more): they keep 3.0.
const OPENAI = 3.5;
const OTHERS = 3.0;

const openai = (window: number, output: number): KnownLimits => ({ window, output, charactersPerToken: OPENAI });
const other = (window: number, output: number | null): KnownLimits => ({ window, output, charactersPerToken: OTHERS });

/**
 * The families by the start of their model names, as each provider's model list gives them (a date, a size or
 * a version may follow). A name that more than one family starts has the longest one's limits.
 */
export const KNOWN_LIMITS: Readonly<Record<string, KnownLimits>> = Object.freeze({
  // OpenAI
  "gpt-3.5-turbo": openai(16_385, 4_096),
  "gpt-4": openai(8_192, 8_192),
  "gpt-4-turbo": openai(128_000, 4_096),
  "gpt-4o": openai(128_000, 16_384),
  "gpt-4.1": openai(1_047_576, 32_768),
  "gpt-4.5": openai(128_000, 16_384),
  "gpt-5": openai(400_000, 128_000),
  "gpt-5-chat": openai(128_000, 16_384),
  "gpt-oss": openai(131_072, 131_072),
  o1: openai(200_000, 100_000),
  "o1-mini": openai(128_000, 65_536),
  "o1-preview": openai(128_000, 32_768),
  o3: openai(200_000, 100_000),
  "o4-mini": openai(200_000, 100_000),
  "codex-mini": openai(200_000, 100_000),
  // Anthropic
  "claude-3-haiku": other(200_000, 4_096),
  "claude-3-sonnet": other(200_000, 4_096),
  "claude-3-opus": other(200_000, 4_096),
  "claude-3-5-haiku": other(200_000, 8_192),
  "claude-3-5-sonnet": other(200_000, 8_192),
  "claude-3-7-sonnet": other(200_000, 64_000),
  "claude-sonnet-4": other(200_000, 64_000),
  "claude-opus-4": other(200_000, 32_000),
  "claude-opus-4-1": other(200_000, 32_000),
  "claude-sonnet-4-5": other(200_000, 64_000),
  "claude-haiku-4-5": other(200_000, 64_000),
  "claude-opus-4-5": other(200_000, 64_000),
  // Google
  "gemini-1.5-pro": other(2_097_152, 8_192),
  "gemini-1.5-flash": other(1_048_576, 8_192),
  "gemini-2.0-flash": other(1_048_576, 8_192),
  "gemini-2.0-pro": other(2_097_152, 8_192),
  "gemini-2.5-pro": other(1_048_576, 65_536),
  "gemini-2.5-flash": other(1_048_576, 65_536),
  "gemini-3-pro": other(1_048_576, 65_536),
  "gemini-3-flash": other(1_048_576, 65_536),
  // Mistral: the window is shared by input and output.
  "mistral-large": other(131_072, null),
  "mistral-medium": other(131_072, null),
  "mistral-small": other(131_072, null),
  "open-mistral-nemo": other(131_072, null),
  "pixtral-large": other(131_072, null),
  ministral: other(131_072, null),
  codestral: other(256_000, null),
  magistral: other(40_000, null),
  // Amazon (Bedrock)
  "nova-micro": other(128_000, 5_000),
  "nova-lite": other(300_000, 5_000),
  "nova-pro": other(300_000, 5_000),
  "nova-premier": other(1_000_000, 32_000),
});

// Bedrock's cross-region profiles and vendors before the model's own name: "us.anthropic.claude-sonnet-4-5-...".
const BEDROCK_PREFIX = /^(?:(?:us|eu|apac|jp|au|ca|us-gov|global)\.)?(?:anthropic|amazon|mistral|openai|meta|cohere)\./;

/**
 * The model's own name: without a `provider:` prefix (`anthropic:claude-sonnet-4-5`), a path
 * (`models/gemini-2.5-pro`, `openai/gpt-4.1`) or Bedrock's region and vendor (`us.anthropic.claude-...`).
 */
export function modelFamilyName(model: string): string {
  let name = model.trim().toLowerCase();
  const colon = name.indexOf(":");
  // A Bedrock id ends with ":0"; its vendor has a dot before the colon, a provider prefix has none.
  if (colon > 0 && !name.slice(0, colon).includes(".")) name = name.slice(colon + 1);
  name = name.slice(name.lastIndexOf("/") + 1);
  return name.replace(BEDROCK_PREFIX, "");
}

/** The known limits of a model by its name, or null when no family of KNOWN_LIMITS names it. */
export function knownLimits(model: string): KnownLimits | null {
  const name = modelFamilyName(model);
  let found: string | null = null;
  for (const family of Object.keys(KNOWN_LIMITS)) {
    // The family ends where the name does or at a separator: "gpt-4" does not name "gpt-4o".
    const next = name.charAt(family.length);
    if (!name.startsWith(family) || /[a-z0-9]/.test(next)) continue;
    if (found === null || family.length > found.length) found = family;
  }
  return found === null ? null : KNOWN_LIMITS[found]!;
}

/** The ModelLimits of a model by its name: those of its family, else DEFAULT_LIMITS (a window of 32,000 tokens). */
export function limitsOfModel(model: string): ModelLimits {
  const known = knownLimits(model);
  if (known === null) return DEFAULT_LIMITS;
  return new ModelLimits({
    window: new Tokens(known.window),
    ...(known.output === null ? {} : { output: new Tokens(known.output) }),
    charactersPerToken: known.charactersPerToken,
  });
}
