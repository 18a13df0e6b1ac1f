/**
 * The size of an input: its payload as JSON, in UTF-8 bytes. Pure and without imports, so the workflow
 * code checks a turn's input with the same measure and default as the catalog that records it.
 */

/**
 * The default most bytes of an input's payload as JSON (UTF-8): 256 KiB. An AgentCatalog's
 * `maxInputBytes` sets the limit its runners record under; a Temporal turn's `settings.maxInputBytes`
 * sets the limit startTurn and the workflow check before the worker does.
 */
export const MAX_INPUT_BYTES = 256 * 1024;

/** The bytes of `value` as JSON in UTF-8 (0 for a value JSON cannot write), counted without encoding it. */
export function jsonBytes(value: unknown): number {
  const json = JSON.stringify(value) ?? "";
  let bytes = 0;
  for (let index = 0; index < json.length; index += 1) {
    const code = json.charCodeAt(index);
    // A surrogate pair is 4 bytes in UTF-8: 2 for each half (JSON escapes a lone one in ASCII).
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code >= 0xd800 && code < 0xe000 ? 2 : 3;
  }
  return bytes;
}

/** The problem with an input payload's size, as a sentence that names its size and the limit, or null when it fits. */
export function inputSizeProblem(payload: unknown, limit: number = MAX_INPUT_BYTES): string | null {
  const bytes = jsonBytes(payload);
  return bytes > limit
    ? `The input is ${bytes} bytes as JSON, over the limit of ${limit} bytes (maxInputBytes). ` +
        "Send a smaller input; put large content in your app's own store and send its id."
    : null;
}
