// Measuring without making the text: the xml layout's lengths, the shown results' lengths, and the forms a
// shrink reads, against what the text made in full gives (fast-check over varied inputs).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Numbering, referenceType, sourceType, ToolOutput, type Element } from "../../../src/domain/index.js";
import { ModelOutput, Input } from "../../../src/domain/events.js";
import { Trace } from "../../../src/domain/trace.js";
import { ToolDef } from "../../../src/ports/messages.js";
import { BRACKETS, FULLWIDTH } from "../../../src/runtime/index.js";
import {
  COMPRESSED,
  ContextPolicy,
  FULL,
  MessageBuilder,
  ModelLimits,
  STUBBED,
  Text,
  Tokens,
  dropText,
  renderedBy,
  xml,
  type Form,
  type FormsByHandle,
  type Shrink,
} from "../../../src/toolkit/index.js";
import { type ResultShape, type Shaping, shownResult } from "../../../src/toolkit/context/render.js";
import { withoutText } from "../../../src/toolkit/context/forms.js";
import { measureOf, renderOf } from "../../../src/toolkit/context/xml.js";
import { toolOutputs } from "../../fixtures/context-arbitraries.js";

const Document = referenceType("measure-document", { title: z.string() });
const Passage = sourceType("measure-passage", { page: z.number().optional() });

// Texts and values with the characters the layout escapes, and some it does not.
const texts = fc.string({ maxLength: 40, unit: fc.constantFrom("a", " ", "&", "<", ">", '"', "'", "é", "\n", "1") });

/** Elements whose refs name each other (nested, in cycles, or a whole outside the call), with texts and properties. */
const elementLists: fc.Arbitrary<Element[]> = fc
  .array(
    fc.record({
      source: fc.boolean(),
      text: texts,
      ref: fc.option(fc.nat(7), { nil: null }),
      page: fc.option(fc.integer({ min: -3, max: 9 }), { nil: undefined }),
      property: fc.option(texts, { nil: undefined }),
    }),
    { minLength: 1, maxLength: 7 },
  )
  .map((specs) =>
    specs.map(({ source, text, ref, page, property }, index) => {
      const fields = {
        id: `e${index}`,
        ref: ref === null ? null : `e${ref}`,
        properties: (property === undefined ? {} : { "odd key": property }) as Record<string, string>,
      };
      return source ? Passage({ ...fields, text, page }) : Document({ ...fields, title: text });
    }),
  );

const layouts = fc.constantFrom(
  () => xml(),
  () => xml({ cite: null }),
  () => xml({ order: [[Passage, "page"]] }),
  () => xml({ tags: [[Document, "doc"]], fields: [[Passage, { page: "p", text: "summary" }]] }),
);

const citationsOf = fc.constantFrom(BRACKETS, FULLWIDTH, null);

describe("measuring the xml layout", () => {
  it("gives the length of what it shows, measured before or after showing, whole or in parts", () => {
    fc.assert(
      fc.property(elementLists, layouts, citationsOf, fc.boolean(), (elements, make, citations, showFirst) => {
        const layout = make();
        const measure = measureOf(layout)!;
        // Some wholes have no number: only the first elements are recorded.
        const numbering = new Numbering([ToolOutput({ callId: "c1", elements: elements.slice(0, 5) })]);
        const numbered = elements.filter((element) => numbering.numberOf(element.id) !== undefined);
        const shown = showFirst ? layout(numbered, numbering, "search", citations) : undefined;
        const length = measure(numbered, numbering, "search", citations);
        expect(length).toBe((shown ?? layout(numbered, numbering, "search", citations)).length);
        for (const part of [numbered.slice(1), numbered.filter((_, index) => index % 2 === 0)])
          expect(measure(part, numbering, "search", citations)).toBe(
            layout(part, numbering, "search", citations).length,
          );
      }),
    );
  });

  it("measures one numbering's elements with one citation strategy after another, each as it shows", () => {
    fc.assert(
      fc.property(
        elementLists,
        layouts,
        fc.array(citationsOf, { minLength: 2, maxLength: 4 }),
        (given, make, order) => {
          const layout = make();
          const recorded = ToolOutput({ callId: "c1", elements: given });
          const numbering = new Numbering([recorded]);
          // The cite markers in the openings differ by strategy: a length kept from the one before would be wrong.
          for (const citations of order)
            expect(measureOf(layout)!(recorded.elements, numbering, "search", citations)).toBe(
              layout(recorded.elements, numbering, "search", citations).length,
            );
        },
      ),
    );
  });

  it("shows a copy of a Source with another text or page as a layout that never saw the Source shows it", () => {
    fc.assert(
      fc.property(elementLists, layouts, citationsOf, texts, fc.boolean(), (given, make, citations, text, paged) => {
        // The recorded elements are the numbering's own, as a thread's are.
        const recorded = ToolOutput({ callId: "c1", elements: given });
        const numbering = new Numbering([recorded]);
        const copies = recorded.elements.map((element) =>
          Passage.is(element) ? { ...element, text, ...(paged ? { page: 99 } : {}) } : element,
        );
        const layout = make();
        layout(recorded.elements, numbering, "search", citations);
        expect(layout(copies, numbering, "search", citations)).toBe(make()(copies, numbering, "search", citations));
        const measured = make();
        measured(recorded.elements, numbering, "search", citations);
        expect(measureOf(measured)!(copies, numbering, "search", citations)).toBe(
          make()(copies, numbering, "search", citations).length,
        );
      }),
    );
  });

  it("measures the Sources it is told are textless as withoutText's copies show, without the copies", () => {
    fc.assert(
      fc.property(
        elementLists,
        layouts,
        citationsOf,
        fc.array(fc.boolean()),
        fc.boolean(),
        (given, make, citations, flags, showFirst) => {
          const recorded = ToolOutput({ callId: "c1", elements: given });
          const numbering = new Numbering([recorded]);
          const textless = recorded.elements.map((_, index) => flags[index] ?? false);
          const copies = recorded.elements.map((element, index) => (textless[index] ? withoutText(element) : element));
          const layout = make();
          if (showFirst) layout(recorded.elements, numbering, "search", citations);
          expect(measureOf(layout)!(recorded.elements, numbering, "search", citations, textless)).toBe(
            make()(copies, numbering, "search", citations).length,
          );
        },
      ),
    );
  });

  it("measures no Show but the xml layout's", () => {
    expect(measureOf(() => "")).toBeUndefined();
  });
});

const forms = fc.constantFrom<Form>(FULL, COMPRESSED, STUBBED);

describe("measuring a shown result", () => {
  it("gives the length of its content, and the content and shortening of a result made at once", () => {
    fc.assert(
      fc.property(
        toolOutputs,
        forms,
        fc.array(fc.tuple(fc.nat(6), forms), { maxLength: 3 }),
        fc.option(fc.integer({ min: 1, max: 200 }), { nil: null }),
        (output, form, lifts, cap) => {
          const policy = new ContextPolicy({ resultCap: cap === null ? null : new Tokens(cap), compressed: dropText });
          const limits = new ModelLimits({ window: new Tokens(100_000) });
          const numbering = new Numbering([output]);
          const layout = xml();
          const show = (elements: readonly Element[], tool: string | null) =>
            layout(elements, numbering, tool, BRACKETS);
          const measure = (elements: readonly Element[], tool: string | null, textless?: readonly boolean[]) =>
            measureOf(layout)!(elements, numbering, tool, BRACKETS, textless);
          const shape: ResultShape = {
            form,
            floors: new Map(lifts.map(([index, lifted]) => [`d#${index}`, lifted] as const)),
          };
          const render = (elements: readonly Element[], tool: string | null, textless?: readonly boolean[]) =>
            renderOf(layout)!(elements, numbering, tool, BRACKETS, textless);
          const measured: Shaping = { policy, limits, show: render, measure };
          const made = shownResult(output, "search", "r1", shape, measured);
          const atOnce = shownResult(output, "search", "r1", shape, { policy, limits, show });
          expect(made.length).toBe(made.content.length);
          expect([made.content, made.shortened]).toEqual([atOnce.content, atOnce.shortened]);
        },
      ),
    );
  });
});

describe("the forms a shrink reads", () => {
  it("are those before the call's shrink applied any of its offers, for a shrink that offers as it reads", () => {
    const seen: (Form | undefined)[] = [];
    // A generator: it reads the forms between its offers, after the first offer was applied.
    const lazy: Shrink = function* (_view: Trace, forms: FormsByHandle) {
      yield ["r2", STUBBED] as const;
      seen.push(forms.get("r2"));
      yield ["r1", STUBBED] as const;
    };
    const search = ToolDef({ name: "search", description: "Search.", parameters: { type: "object" } });
    const builder = new MessageBuilder({
      policy: new ContextPolicy({ startAt: new Tokens(20), target: new Tokens(10), minGain: null, shrink: [lazy] }),
      renderInput: renderedBy(Text),
      model: "test-model",
      tools: [search],
      limits: new ModelLimits({ window: new Tokens(100_000) }),
    });
    const events = [
      Input({ payload: "Question?" }),
      ModelOutput({ toolCalls: [{ id: "c1", name: "search", arguments: {} }] }),
      ToolOutput({ callId: "c1", text: "A long result. ".repeat(20) }),
      ModelOutput({ toolCalls: [{ id: "c2", name: "search", arguments: {} }] }),
      ToolOutput({ callId: "c2", text: "Another long result. ".repeat(20) }),
    ];
    expect(builder.explain(Trace.of(events)).map((shrunk) => [shrunk.result, shrunk.form])).toEqual([
      ["r1", STUBBED],
      ["r2", STUBBED],
    ]);
    // At the last call it stubbed r2, then read r2 as it was before that call's offers: full.
    expect(seen.length).toBeGreaterThan(0);
    expect(seen).not.toContain(STUBBED);
  });
});
