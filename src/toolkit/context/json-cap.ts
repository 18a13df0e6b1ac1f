/** jsonCap: a Shorten that writes a result's data as JSON and cuts it at a number of tokens. */
import { ValueError } from "../../domain/errors.js";
import { Tokens } from "./limits.js";
import type { Shorten } from "./shorten.js";
import { CUT_TEXT, capText } from "./text-shortens.js";

/**
 * A Shorten that writes the data of a result as JSON and cuts it at `limit` tokens. When the JSON is longer,
 * the result gets no data, and the cut JSON follows its text on a new line. Shorter data stays as it is,
 * and so does a result without data.
 * @throws ValueError when limit is not Tokens or cut is not a string.
 */
export function jsonCap(limit: Tokens, cut: string = CUT_TEXT): Shorten {
  if (!(limit instanceof Tokens))
    throw new ValueError("jsonCap needs a limit in Tokens, such as jsonCap(new Tokens(1_000)).");
  if (typeof cut !== "string") throw new ValueError("The cut text of jsonCap must be a string.");
  return (output, limits) => {
    if (output.data === null) return output;
    const json = JSON.stringify(output.data);
    if (limits.estimate(json.length) <= limit.count) return output;
    const cutJson = capText(json, limit.count, cut, limits);
    return {
      ...output,
      data: null,
      text: output.text === null || output.text === "" ? cutJson : `${output.text}\n${cutJson}`,
    };
  };
}
