/**
 * How one result shows in its form: the full or compressed function of its tool, the elements that floors
 * lift, the handle line of a compressed or stubbed result, and the cut at the cap of its tool.
 */
import type { Element } from "../../domain/elements.js";
import type { ToolOutput } from "../../domain/events.js";
import type { ContextPolicy } from "./context-policy.js";
import { COMPRESSED, FULL, STUBBED, type Form } from "./form.js";
import type { ModelLimits } from "./limits.js";
import { shortened } from "./shorten.js";
import { CUT_TEXT, capText } from "./text-shortens.js";
import { resultContent } from "./tool-result.js";

/** The first line of a compressed result; {handle} becomes its handle. */
export const COMPRESSED_LINE = "[{handle}: text left out to save space]";
/** The line of a stubbed result; {handle} becomes its handle. */
export const STUBBED_LINE = "[{handle}: result left out to save space]";

/** A result's form and the forms that floors lifted its elements to, by element id. */
export interface ResultShape {
  form: Form;
  floors: ReadonlyMap<string, Form>;
}

/** The full shape: what every result has until a shrink lowers it. */
export const FULL_SHAPE: ResultShape = Object.freeze({ form: FULL, floors: new Map<string, Form>() });

/** What shaping a result needs: the policy, the limits (null: every result full, as recorded) and the layout. */
export interface Shaping {
  policy: ContextPolicy;
  limits: ModelLimits | null;
  show: (elements: readonly Element[], tool: string | null) => string;
}

/** The content of a result as the model reads it, and whether it shows less than the full result. */
export interface ShownResult {
  content: string;
  shortened: boolean;
}

/**
 * The content of `output` (a result of `tool`, under `handle`) in `shape`. Without limits it shows as recorded.
 * @throws ShortenError when a Shorten function of the tool breaks its rule.
 */
export function shownResult(
  output: ToolOutput,
  tool: string | null,
  handle: string,
  shape: ResultShape,
  shaping: Shaping,
): ShownResult {
  const { policy, limits, show } = shaping;
  if (limits === null) return { content: resultContent(output, shown(output.elements, tool, show)), shortened: false };
  const name = tool ?? "";
  const full = () => shortened(policy.shortenFor(name, FULL), output, limits, tool);
  if (shape.form === FULL)
    return capped(resultContent(full(), shown(full().elements, tool, show)), null, name, shaping);
  const compressed = shortened(policy.shortenFor(name, COMPRESSED), output, limits, tool);
  const lifted = [...shape.floors.values()].includes(FULL) ? full() : null;
  const elements = output.elements.flatMap((element, index): Element[] => {
    const form = Math.max(shape.form, shape.floors.get(element.id) ?? STUBBED) as Form;
    if (form === FULL) return [lifted!.elements[index]!];
    return form === COMPRESSED ? [compressed.elements[index]!] : [];
  });
  const body =
    shape.form === COMPRESSED
      ? resultContent({ ...compressed, elements }, shown(elements, tool, show))
      : shown(elements, tool, show);
  const line = (shape.form === COMPRESSED ? COMPRESSED_LINE : STUBBED_LINE).replaceAll("{handle}", handle);
  return { ...capped(body, line, name, shaping), shortened: true };
}

function shown(elements: readonly Element[], tool: string | null, show: Shaping["show"]): string {
  return elements.length === 0 ? "" : show(elements, tool);
}

// The cap cuts what the form left of the result; the handle line stays whole above it.
function capped(body: string, line: string | null, tool: string, shaping: Shaping): ShownResult {
  const limit = shaping.policy.capFor(tool);
  const cut = limit === null || shaping.limits === null ? body : capText(body, limit.count, CUT_TEXT, shaping.limits);
  const content = line === null ? cut : cut === "" ? line : `${line}\n${cut}`;
  return { content, shortened: cut !== body };
}
