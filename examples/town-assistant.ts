/**
 * The town assistant that `npm run app` serves: tutorial 2's citing assistant, plus a tool that books a
 * bulky waste pickup. A booking waits for the resident's approval before it runs, then asks which day and
 * time suit (a form in the playground), so the app shows a person in the loop without code.
 */
import { z } from "zod";
import { ToolOutput } from "../src/domain/index.js";
import type { ChatModel } from "../src/ports/index.js";
import { tool } from "../src/runtime/index.js";
import { BRACKETS, ReActAgent, ReActConfig } from "../src/toolkit/index.js";
import { LIBRARY } from "./tutorials/01-first-agent/library.js";
import { PROMPT } from "./tutorials/02-citations/agent.js";
import { Document, Passage, readDocument, search } from "./tutorials/02-citations/tools.js";

/** The question a booking asks once approved: the day, the part of the day, how many pieces, a call ahead. */
export const PickupSlot = z.object({
  date: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, "a day as YYYY-MM-DD")
    .describe("The day of the pickup, as YYYY-MM-DD."),
  time: z.enum(["morning", "afternoon"]).describe("The part of the day the crew comes."),
  pieces: z.number().int().min(1).max(20).describe("How many pieces the crew takes (at most 20)."),
  callAhead: z.boolean().default(false).describe("Whether the crew phones 30 minutes before it comes."),
});

/**
 * Book a bulky waste pickup: it waits for a person's approval, then asks which slot suits. An example
 * only: it books nothing anywhere, and says so.
 */
export const bookPickup = tool({
  name: "book_pickup",
  description:
    "Book a bulky waste pickup for the resident. The resident approves the booking and then chooses the day, " +
    "the time and the number of pieces; do not ask for them yourself.",
  args: {
    items: z.string().min(1).describe("What the crew picks up, in the resident's words, such as 'an old sofa'."),
  },
  needsApproval: true,
  async run({ items }, { ask }) {
    const slot = await ask({ text: `When should the crew pick up ${items}?`, schema: PickupSlot });
    const call = slot.callAhead ? " The crew phones 30 minutes before it comes." : "";
    return ToolOutput({
      text:
        `Booked the pickup of ${items} on ${slot.date} in the ${slot.time}, ${slot.pieces} ` +
        `piece${slot.pieces === 1 ? "" : "s"}.${call} (An example: nothing was sent to the town.)`,
    });
  },
});

/** What the town assistant is told besides tutorial 2's prompt. */
export const BOOKING_PROMPT =
  "When the resident asks you to book a bulky waste pickup, call book_pickup once: it asks the resident " +
  "to approve and to choose the slot. Then say what was booked, or that the resident declined and why.";

/** The town assistant on a model: tutorial 2's search tools, citing with BRACKETS, and book_pickup. */
export function townAssistant(model: ChatModel): ReActAgent {
  const config = new ReActConfig({
    model,
    prompt: `${PROMPT}\n${BOOKING_PROMPT}`,
    tools: [search.bind({ library: LIBRARY }), readDocument.bind({ library: LIBRARY }), bookPickup],
    citations: BRACKETS,
  });
  return new ReActAgent(config, { elementTypes: [Document, Passage] });
}
