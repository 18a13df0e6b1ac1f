// A minimal Tool for the tests of Prompts.described: the real tool() factory lives in src/runtime/tools.
import { z } from "zod";
import { ToolOutput } from "../../../src/domain/events.js";
import { ToolDef } from "../../../src/ports/messages.js";
import type { Tool } from "../../../src/runtime/contracts.js";

/** A tool with a name, a description, and argument descriptions over a zod object of its arguments. */
export function testTool(
  name: string,
  description: string,
  args: z.ZodObject<any>,
  argumentDescriptions: Record<string, string> = {},
): Tool {
  return {
    name,
    description,
    args,
    limit: null,
    repeats: null,
    unbound: [],
    argumentDescriptions,
    def: () => ToolDef({ name, description, parameters: z.toJSONSchema(args) as ToolDef["parameters"] }),
    withTexts: (texts) =>
      testTool(name, texts.description ?? description, args, { ...argumentDescriptions, ...texts.arguments }),
    invoke: () => Promise.resolve(ToolOutput({ elements: [] })),
  };
}
