/** ContextPolicy: how a MessageBuilder keeps what a model is sent within what the model accepts, and which reasoning it sends back. */
import { ValueError } from "../../domain/errors.js";
import { Compact } from "./compact.js";
import { FULL, type Form, Forms, type Shorten, asRecorded, dropText } from "./forms.js";
import { type ModelLimits, Share, type Threshold, Tokens } from "./limits.js";
import { Reopen } from "./reopen.js";
import { Compress, Floor, type Shrink, Stub, checkThreshold, cited, turns } from "./shrink.js";

// Reasoning: which reasoning of earlier model outputs the MessageBuilder sends back to the model.

/**
 * Which reasoning of earlier model outputs is sent back. It counts toward the context like any text.
 * CURRENT_TURN lets a model continue its reasoning between the calls of a turn; when a new turn starts, the
 * earlier turn's reasoning is dropped, so the prompt cache misses once in each turn.
 */
export enum Reasoning {
  /** Send no reasoning back. The default of ContextPolicy. */
  NEVER = "never",
  /** Send back the reasoning of the model outputs of the running turn. */
  CURRENT_TURN = "current_turn",
  /** Send back the reasoning of every model output. */
  ALWAYS = "always",
}

/** Send no reasoning of earlier model outputs back to the model, Reasoning.NEVER. */
export const NEVER = Reasoning.NEVER;
/** Send back the reasoning of the model outputs of the running turn, Reasoning.CURRENT_TURN. */
export const CURRENT_TURN = Reasoning.CURRENT_TURN;
/** Send back the reasoning of every earlier model output, Reasoning.ALWAYS. */
export const ALWAYS = Reasoning.ALWAYS;

// ContextPolicy: how a MessageBuilder keeps what a model is sent within what the model accepts.

/** The settings of a ContextPolicy. Each default is the whole default: a field you give replaces it. */
export interface ContextPolicyOptions {
  /** The size of the context above which the shrinks start. Default Share(0.6). */
  startAt?: Threshold;
  /** The size the shrinks bring the context under; it must be below startAt. Default Share(0.4). */
  target?: Threshold;
  /**
   * The least one pass of the shrinks must free, or null for any gain. Default Share(0.1). A pass that frees
   * less is not made (the prompt cache stays whole), unless without it the call would not fit with the
   * output reserve: a refused call costs more than a cache miss.
   */
  minGain?: Threshold | null;
  /** The shrinks, in the order to apply them. */
  shrink?: readonly Shrink[];
  /** How the model summarises earlier history, or null to never summarise. Default null. */
  compact?: Compact | null;
  /** The floors. Default [new Floor(cited, FULL)]: each cited Source stays full. */
  protect?: readonly Floor[];
  /** How each result looks in the full form. Default asRecorded. */
  full?: Shorten;
  /** How each result looks in the compressed form. Default dropText. */
  compressed?: Shorten;
  /** The Forms of a tool, by its name; they replace full, compressed and resultCap for that tool. */
  tools?: Readonly<Record<string, Forms>>;
  /** The most tokens of one result that the model reads, or null to never cut. Default Tokens(8000). */
  resultCap?: Tokens | null;
  /** The tokens kept free in the window for the model's output. Default Tokens(8192). */
  outputReserve?: Tokens;
  /** Which reasoning of earlier model outputs is sent back. Default NEVER. */
  reasoning?: Reasoning;
  /** The most images one request sends, newest first, or null for all. Default null. */
  maxImages?: number | null;
  /** The tool that shows again what was shortened or removed, or null for none. Default new Reopen(). */
  reopen?: Reopen | null;
}

/**
 * The default shrinks: compress the results of every turn but the last two, stub those of every turn but
 * the last four, and above Share(0.85) stub those of the last three turns too.
 */
export const DEFAULT_SHRINKS: readonly Shrink[] = Object.freeze([
  Compress(turns.slice(0, -2)),
  Stub(turns.slice(0, -4)),
  Stub(turns.slice(-3), { when: new Share(0.85) }),
]);

/** The defaults of a ContextPolicy, in one place. */
export const CONTEXT_POLICY_DEFAULTS: Readonly<Required<ContextPolicyOptions>> = Object.freeze({
  startAt: new Share(0.6),
  target: new Share(0.4),
  minGain: new Share(0.1),
  shrink: DEFAULT_SHRINKS,
  compact: null,
  protect: Object.freeze([new Floor(cited, FULL)]),
  full: asRecorded,
  compressed: dropText,
  tools: Object.freeze({}),
  resultCap: new Tokens(8000),
  outputReserve: new Tokens(8192),
  reasoning: Reasoning.NEVER,
  maxImages: null,
  reopen: new Reopen(),
});

/**
 * How a MessageBuilder keeps the context within the model's limits. At each model call the builder
 * estimates the size of the context; over startAt, it applies the shrinks in order until the size is under
 * target (a shrink with its own `when` runs over that size instead). When the context is still over the
 * compact's `when`, the model summarises earlier history. A call whose prompt leaves less than outputReserve
 * in the window is refused before it is made (ContextFullError).
 *
 * @example
 * ```ts
 * import { Compact, Compress, ContextPolicy, MessageBuilder, Share, Stub, Tokens, turns } from "soev-agents/toolkit";
 *
 * const policy = new ContextPolicy({
 *   startAt: new Share(0.6),
 *   target: new Share(0.4),
 *   shrink: [Compress(turns.slice(0, -2)), Stub(turns.slice(0, -4))],
 *   resultCap: new Tokens(4000),
 *   compact: new Compact(),
 * });
 * const builder = new MessageBuilder({ policy });
 * ```
 */
export class ContextPolicy {
  readonly startAt: Threshold;
  readonly target: Threshold;
  readonly minGain: Threshold | null;
  readonly shrink: readonly Shrink[];
  readonly compact: Compact | null;
  readonly protect: readonly Floor[];
  readonly full: Shorten;
  readonly compressed: Shorten;
  readonly tools: Readonly<Record<string, Forms>>;
  readonly resultCap: Tokens | null;
  readonly outputReserve: Tokens;
  readonly reasoning: Reasoning;
  readonly maxImages: number | null;
  readonly reopen: Reopen | null;

  /** @throws ValueError for a setting of the wrong kind, a target not below startAt (when both are Tokens or both Shares), or a negative maxImages. */
  constructor(options: ContextPolicyOptions = {}) {
    const settings = { ...CONTEXT_POLICY_DEFAULTS, ...definedOnly(options) };
    checkThreshold(settings.startAt, "startAt", false);
    checkThreshold(settings.target, "target", false);
    checkThreshold(settings.minGain, "minGain", true);
    if (!Array.isArray(settings.shrink) || settings.shrink.some((shrink) => typeof shrink !== "function")) {
      throw new ValueError(
        "shrink must be a list of shrinks, such as [Compress(turns.slice(0, -2)), Stub(turns.slice(0, -4))].",
      );
    }
    for (const shrink of settings.shrink)
      if (shrink.when !== undefined) checkThreshold(shrink.when, "A shrink's when", true);
    if (settings.compact !== null && !(settings.compact instanceof Compact))
      throw new ValueError("compact must be a Compact, or null to never summarise.");
    if (!Array.isArray(settings.protect) || settings.protect.some((floor) => !(floor instanceof Floor))) {
      throw new ValueError("protect must be a list of Floors, such as [new Floor(cited, FULL)].");
    }
    if (typeof settings.full !== "function" || typeof settings.compressed !== "function")
      throw new ValueError("full and compressed must be Shorten functions, such as asRecorded and dropText.");
    if (
      settings.tools === null ||
      typeof settings.tools !== "object" ||
      Object.values(settings.tools).some((forms) => !(forms instanceof Forms))
    ) {
      throw new ValueError("tools must map tool names to Forms, such as { read_document: new Forms({ cap: null }) }.");
    }
    if (settings.resultCap !== null && !(settings.resultCap instanceof Tokens))
      throw new ValueError("resultCap must be Tokens, or null to never cut a result.");
    if (!(settings.outputReserve instanceof Tokens))
      throw new ValueError("outputReserve must be Tokens, such as new Tokens(8192).");
    if (!Object.values(Reasoning).includes(settings.reasoning))
      throw new ValueError("reasoning must be NEVER, CURRENT_TURN or ALWAYS.");
    if (settings.maxImages !== null && !(Number.isInteger(settings.maxImages) && settings.maxImages >= 0)) {
      throw new ValueError(
        `maxImages must be a whole number of at least 0, or null to send every image, not ${settings.maxImages}.`,
      );
    }
    if (settings.reopen !== null && !(settings.reopen instanceof Reopen))
      throw new ValueError("reopen must be a Reopen, or null for no reopen tool.");
    const { startAt, target } = settings;
    const comparable =
      (startAt instanceof Share && target instanceof Share) || (startAt instanceof Tokens && target instanceof Tokens);
    if (comparable && !(size(target) < size(startAt)))
      throw new ValueError(`target (${String(target)}) must be below startAt (${String(startAt)}).`);
    this.startAt = startAt;
    this.target = target;
    this.minGain = settings.minGain;
    this.shrink = Object.freeze([...settings.shrink]);
    this.compact = settings.compact;
    this.protect = Object.freeze([...settings.protect]);
    this.full = settings.full;
    this.compressed = settings.compressed;
    this.tools = Object.freeze({ ...settings.tools });
    this.resultCap = settings.resultCap;
    this.outputReserve = settings.outputReserve;
    this.reasoning = settings.reasoning;
    this.maxImages = settings.maxImages;
    this.reopen = settings.reopen;
    Object.freeze(this);
  }

  /**
   * startAt and target in the tokens of a model's window.
   * @throws ValueError when target is not below startAt in that window.
   */
  thresholds(limits: ModelLimits): { startAt: number; target: number } {
    const startAt = limits.tokens(this.startAt);
    const target = limits.tokens(this.target);
    if (!(target < startAt)) {
      throw new ValueError(
        `The policy's target (${String(this.target)}, ${target} tokens) must be below its startAt (${String(this.startAt)}, ${startAt} tokens) in a window of ${limits.window.count} tokens.`,
      );
    }
    return { startAt, target };
  }

  /**
   * The function that makes a result of `tool` look as it does in `form`: FULL, or else COMPRESSED. A reopen
   * result's full form is as drawn, each element already in the full form of the tool that recorded it,
   * unless `tools` gives the reopen tool a full function of its own.
   */
  shortenFor(tool: string, form: Form): Shorten {
    const own = Object.hasOwn(this.tools, tool) ? this.tools[tool] : undefined;
    if (form === FULL) return own?.full ?? (tool === this.reopen?.name ? asRecorded : this.full);
    return own?.compressed ?? this.compressed;
  }

  /** The most tokens of a result of `tool` that the model reads: its Forms' cap, or resultCap. Null never cuts. */
  capFor(tool: string): Tokens | null {
    const own = Object.hasOwn(this.tools, tool) ? this.tools[tool] : undefined;
    return own === undefined || own.cap === "policy" ? this.resultCap : own.cap;
  }
}

function size(threshold: Threshold): number {
  return threshold instanceof Share ? threshold.fraction : threshold.count;
}

function definedOnly(options: ContextPolicyOptions): ContextPolicyOptions {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}
