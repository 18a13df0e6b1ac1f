// A reopen-like tool for the tests: lists of element numbers and result handles.
import { z } from "zod";
import { Element } from "../../../src/domain/elements.js";
import { Reopened } from "../../../src/domain/events.js";
import { ElementId, ResultHandle, tool } from "../../../src/runtime/index.js";

export const reopenTool = tool({
  name: "reopen",
  description: "Show elements and whole results again.",
  args: {
    elements: z.array(ElementId(Element)).default([]).describe("The numbers of the elements to show again."),
    results: z.array(ResultHandle()).default([]).describe("The handles of the results to show again."),
  },
  run: async ({ elements, results }) => Reopened({ reopenedElements: elements, reopenedResults: results }),
});
