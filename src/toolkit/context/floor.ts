/** Floors: keep some elements in a higher form than their result; `cited` keeps what the model relied on. */
import type { Element } from "../../domain/elements.js";
import { ValueError } from "../../domain/errors.js";
import { ModelOutput } from "../../domain/events.js";
import type { Trace } from "../../domain/trace.js";
import { isForm, type Form } from "./form.js";

/**
 * A predicate that says whether a floor applies to an element: the element, the name of the tool that
 * recorded it (null if none), and the trace before the model call at which its result shrank. It reads
 * only that trace, so what happens later never changes a message the model was sent already.
 */
export type Protects = (element: Element, tool: string | null, before: Trace) => boolean;

/**
 * The lowest form that some elements can reach, whatever their result has. An element's form is its
 * result's, lifted to the highest floor that applies to it. A floor only shows more of a result.
 */
export class Floor {
  /** @throws ValueError when applies is not a function or form is not a Form. */
  constructor(
    /** The predicate that says to which elements the floor applies. */
    readonly applies: Protects,
    /** The lowest form of those elements. */
    readonly form: Form,
  ) {
    if (typeof applies !== "function")
      throw new ValueError("A Floor needs a predicate of (element, tool, before), such as cited.");
    if (!isForm(form)) throw new ValueError("A Floor needs a Form: FULL, COMPRESSED or STUBBED.");
  }
}

/**
 * Whether an earlier model output cited the element: true when a marker of a model output in `before`
 * cites its id. So a passage that the model relied on keeps its text after its result shrinks.
 */
export const cited: Protects = (element, _tool, before) => citedIds(before).has(element.id);

// A builder asks about many elements of one view: read its citations once.
const citedByView = new WeakMap<Trace, ReadonlySet<string>>();

/** The ids of the Sources that the model outputs of a trace cite. */
function citedIds(view: Trace): ReadonlySet<string> {
  let ids = citedByView.get(view);
  if (ids === undefined) {
    const found = new Set<string>();
    for (const event of view.events) {
      if (!ModelOutput.is(event)) continue;
      for (const marker of event.markers)
        for (const number of marker.cited) if (number.source !== null) found.add(number.source);
    }
    ids = found;
    citedByView.set(view, ids);
  }
  return ids;
}
