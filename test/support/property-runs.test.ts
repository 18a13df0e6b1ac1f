import { describe, expect, it } from "vitest";
import { propertyRuns } from "./property-runs.js";

describe("propertyRuns", () => {
  it("gives the base runs unless SOEV_PROPERTY_RUNS asks for more, and never fewer", () => {
    expect(propertyRuns(60, {})).toBe(60);
    expect(propertyRuns(60, { SOEV_PROPERTY_RUNS: "" })).toBe(60);
    expect(propertyRuns(60, { SOEV_PROPERTY_RUNS: "1000" })).toBe(1000);
    expect(propertyRuns(60, { SOEV_PROPERTY_RUNS: "10" })).toBe(60);
  });

  it("refuses a value that is not a whole number of runs, saying what to do", () => {
    expect(() => propertyRuns(60, { SOEV_PROPERTY_RUNS: "lots" })).toThrow(
      'SOEV_PROPERTY_RUNS must be a whole number of runs above 0, not "lots"; unset it for the default.',
    );
    expect(() => propertyRuns(60, { SOEV_PROPERTY_RUNS: "0" })).toThrow("above 0");
  });
});
