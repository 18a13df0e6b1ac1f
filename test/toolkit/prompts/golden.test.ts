import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GOLDEN_OUTPUTS, goldenRenders } from "./golden-cases.js";

// outputs.json holds the renders of the nunjucks engine on main (83d45b6), captured before the interpreter.
describe("the template engine renders the examples and docs as before", () => {
  const expected = JSON.parse(readFileSync(GOLDEN_OUTPUTS, "utf8")) as Record<string, string>;
  const actual = goldenRenders();

  it("renders the same set of cases", () => {
    expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
    expect(Object.keys(actual).length).toBeGreaterThanOrEqual(24);
  });

  it.each(Object.keys(expected))("renders %s byte for byte", (key) => {
    expect(actual[key]).toBe(expected[key]);
  });
});
