/** What one model accepts: its window in tokens, and how many characters make one of its tokens. */
import { ValueError } from "../../domain/errors.js";

/** A number of tokens, its own type so that it is never taken for a share of a window. Two compare with < and >. */
export class Tokens {
  constructor(readonly count: number) {
    if (!Number.isFinite(count) || count < 0)
      throw new ValueError(`Tokens must be a count of at least 0, not ${count}.`);
  }

  /** The count, so that two Tokens compare with < and >. */
  valueOf(): number {
    return this.count;
  }

  /** As code writes it, such as "Tokens(500)", for messages. */
  toString(): string {
    return `Tokens(${this.count})`;
  }
}

/** A share of the window of the model that the next call goes to: Share(0.6) of 100,000 tokens is 60,000. */
export class Share {
  constructor(readonly fraction: number) {
    if (!(fraction > 0 && fraction <= 1))
      throw new ValueError(`A Share must be above 0 and at most 1, not ${fraction}.`);
  }

  /** As code writes it, such as "Share(0.6)", for messages. */
  toString(): string {
    return `Share(${this.fraction})`;
  }
}

/** A size of a context: a Share of the model's window, or a number of Tokens. */
export type Threshold = Share | Tokens;

/** The real prompt tokens of an earlier call to the same model, and the characters its prompt had. */
export interface MeasuredPrompt {
  tokens: number;
  characters: number;
}

/** The settings of ModelLimits. */
export interface ModelLimitsOptions {
  /** The most tokens one call can send and receive together. */
  window: Tokens;
  /** The most tokens one call can write, where the model has such a limit apart from its window. Default none. */
  output?: Tokens | null;
  /** The average characters in one token; low on purpose so the estimate counts more tokens than there are. Default 3.0. */
  charactersPerToken?: number;
}

/** What one model accepts. The framework uses no tokenizer: it estimates tokens from characters. */
export class ModelLimits {
  readonly window: Tokens;
  /** The most tokens one call can write, or null when only the window bounds it. */
  readonly output: Tokens | null;
  readonly charactersPerToken: number;

  constructor(options: ModelLimitsOptions) {
    this.window = options.window;
    this.output = options.output ?? null;
    this.charactersPerToken = options.charactersPerToken ?? 3.0;
    if (!(this.window instanceof Tokens)) throw new ValueError("window must be Tokens, such as new Tokens(128_000).");
    if (this.output !== null && !(this.output instanceof Tokens))
      throw new ValueError("output must be Tokens, such as new Tokens(16_384), or null.");
    if (!(this.charactersPerToken > 0))
      throw new ValueError(`charactersPerToken must be above 0, not ${this.charactersPerToken}.`);
  }

  /** The tokens of a threshold in this model's window. */
  tokens(threshold: Threshold): number {
    return threshold instanceof Share ? Math.floor(threshold.fraction * this.window.count) : threshold.count;
  }

  /** The estimated tokens of a count of characters. */
  estimate(characters: number): number {
    return Math.ceil(characters / this.charactersPerToken);
  }

  /**
   * The tokens of a prompt of `characters`. With the real count of an earlier prompt to this model, only
   * the characters added since (or taken away) are estimated, so the estimate drifts no further than they.
   */
  promptTokens(characters: number, measured: MeasuredPrompt | null = null): number {
    if (measured === null) return this.estimate(characters);
    const added = characters - measured.characters;
    const change = added >= 0 ? this.estimate(added) : -Math.floor(-added / this.charactersPerToken);
    return Math.max(0, measured.tokens + change);
  }
}

/**
 * The limits of a model that the known limits (limitsOfModel) do not name: a window of 32,000 tokens, which fits
 * most models. A ReActConfig that gives no limits takes its turn's model's known limits, else these.
 */
export const DEFAULT_LIMITS = new ModelLimits({ window: new Tokens(32_000) });
