/** Shrunk: why a result has its form, as MessageBuilder.explain tells it. */
import type { Form } from "./form.js";
import type { Shrink } from "./shrink.js";

/** Why a result has its form: the shrink that gave it, and the model call at which it did. */
export class Shrunk {
  constructor(
    /** The handle, such as "r1". */
    readonly result: string,
    /** The form the shrink gave the result. */
    readonly form: Form,
    /** The shrink that gave the form. */
    readonly by: Shrink,
    /** The number of model calls before the model call at which the shrink gave the form. */
    readonly at: number,
  ) {}
}
