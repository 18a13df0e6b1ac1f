/** Forms: how the results of one tool look in each form, given to a ContextPolicy by the tool's name. */
import { ValueError } from "../../domain/errors.js";
import { Tokens } from "./limits.js";
import type { Shorten } from "./shorten.js";

/** The settings of Forms; a field that is null or absent uses the policy's own. */
export interface FormsOptions {
  /** The function of the full form, or null for the policy's full. */
  full?: Shorten | null;
  /** The function of the compressed form, or null for the policy's compressed. */
  compressed?: Shorten | null;
  /** The most tokens of a result of this tool that the model reads: null never cuts, "policy" uses the policy's resultCap. */
  cap?: Tokens | null | "policy";
}

/**
 * How the results of one tool look in each form. A stubbed result is always its handle line and the
 * elements that floors keep, so it has no function.
 */
export class Forms {
  readonly full: Shorten | null;
  readonly compressed: Shorten | null;
  readonly cap: Tokens | null | "policy";

  /** @throws ValueError when a function is not a function or cap is not Tokens, null or "policy". */
  constructor(options: FormsOptions = {}) {
    this.full = options.full ?? null;
    this.compressed = options.compressed ?? null;
    this.cap = options.cap === undefined ? "policy" : options.cap;
    for (const name of ["full", "compressed"] as const) {
      if (this[name] !== null && typeof this[name] !== "function")
        throw new ValueError(
          `Forms.${name} must be a Shorten function, such as sources(cap(new Tokens(500))), or null.`,
        );
    }
    if (!(this.cap === null || this.cap === "policy" || this.cap instanceof Tokens)) {
      throw new ValueError('Forms.cap must be Tokens, null (never cut) or "policy" (the policy\'s resultCap).');
    }
  }
}
