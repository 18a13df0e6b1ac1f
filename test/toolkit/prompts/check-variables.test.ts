import { describe, expect, it } from "vitest";
import { PromptFile, PromptFileError } from "../../../src/toolkit/index.js";

function file(system: string, block?: string): PromptFile {
  const layer = block === undefined ? [] : [{ endpoints: ["m"], blocks: { role: block } }];
  return new PromptFile({ system: `{% block role %}You help.{% endblock %} ${system}`, models: layer }, "vars.yaml");
}

describe("PromptFile.checkVariables", () => {
  it("accepts a template that reads only known variables, super and self", () => {
    expect(() => file("Cite as {{ citation }}.", "{{ super() }} More.").checkVariables(["citation"])).not.toThrow();
    expect(() => file("{{ self.role() }}").checkVariables([])).not.toThrow();
  });

  it("refuses a system template that reads an unknown variable, naming it and the file", () => {
    const check = () => file("Hello {{ user_name }}, cite as {{ citation }}.").checkVariables(["citation"]);
    expect(check).toThrow(PromptFileError);
    expect(check).toThrow(/vars\.yaml: the system template reads "user_name"/);
  });

  it("refuses a block override of a layer that reads an unknown variable, naming the block and layer", () => {
    const check = () => file("{{ citation }}", "{{ super() }} Today is {{ today }}.").checkVariables(["citation"]);
    expect(check).toThrow(/block "role" of model layer 1 \(m\) reads "today"/);
  });

  it("finds variables read in conditions, filters, tests and calls", () => {
    for (const [template, variable] of [
      ["{% if tone %}x{% endif %}", "tone"],
      ["{{ citation | default(fallback) }}", "fallback"],
      ["{{ citation if mode is defined }}", "mode"],
      ["{{ items[index] }}", "items"],
      ["{% for doc in docs %}{{ doc }}{% endfor %}", "docs"],
    ] as const) {
      expect(() => file(template).checkVariables(["citation"]), template).toThrow(`"${variable}"`);
    }
  });

  it("does not count names the template binds itself: loop targets, loop, set and macro arguments", () => {
    const template =
      "{% for key, value in [[1, 2]] %}{{ key }}{{ value }}{{ loop.index }}{% endfor %}" +
      "{% set greeting = 'hi' %}{{ greeting }}" +
      "{% set captured %}{{ citation }}{% endset %}{{ captured }}" +
      "{% macro cite(number, style='x') %}{{ number }}{{ style }}{% endmacro %}{{ cite(1) }}" +
      "{{ range(3) | join(',') }}";
    expect(() => file(template).checkVariables(["citation"])).not.toThrow();
  });

  it("counts a loop's names as unknown outside the loop", () => {
    expect(() => file("{% for doc in [1] %}{% endfor %}{{ doc }}").checkVariables([])).toThrow(`"doc"`);
  });

  it("accepts a file without a system template", () => {
    expect(() => new PromptFile({ texts: { a: "{{ anything }}" } }).checkVariables([])).not.toThrow();
  });
});
