/** Form: how much of a result the model is shown. Forms are not recorded: each model call works them out again. */

/**
 * How much of a result the model is shown, ordered: STUBBED < COMPRESSED < FULL. A shrink only lowers the
 * form of a result; a floor only lifts the form of one element.
 */
export enum Form {
  /** The output is one line that names its handle, and the elements that floors keep. The call stays. */
  STUBBED = 0,
  /** The output as the compressed function of its tool makes it, under a line that names its handle. */
  COMPRESSED = 1,
  /** The output as the full function of its tool makes it: by default, as the tool recorded it. */
  FULL = 2,
}

/** The form of a result that the model reads whole, Form.FULL. */
export const FULL = Form.FULL;
/** The form of a result with less text, under a line that names its handle, Form.COMPRESSED. */
export const COMPRESSED = Form.COMPRESSED;
/** The form of a result that is one line with its handle, Form.STUBBED. */
export const STUBBED = Form.STUBBED;

/** Whether a value is a Form. */
export function isForm(value: unknown): value is Form {
  return value === Form.STUBBED || value === Form.COMPRESSED || value === Form.FULL;
}
