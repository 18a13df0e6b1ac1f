/** The schemas of the comparison routes: a re-run batch's report, and a model call's what-if under a candidate agent. */
import { z } from "@hono/zod-openapi";
import { CallParam } from "./schemas.js";

export const BatchIdParam = z.object({
  batchId: z
    .string()
    .min(1)
    .openapi({ param: { name: "batchId", in: "path" }, example: "b1" }),
});

export const RerunQuery = z.object({
  format: z
    .enum(["json", "markdown"])
    .optional()
    .openapi({ description: "`markdown` answers the report as text/markdown, for a pull request. Default json." }),
});

const Changes = z.object({ same: z.array(z.string()), added: z.array(z.string()), removed: z.array(z.string()) });
const TurnSide = z.object({ answer: z.string(), tokens: z.number(), failed: z.boolean() });

const TurnComparison = z
  .object({
    thread: z.string(),
    candidateThread: z.string(),
    turn: z.number().int().openapi({ description: "The turn's number in its thread, from 1." }),
    original: TurnSide,
    candidate: TurnSide.nullable().openapi({ description: "Null when the batch did not re-run the turn." }),
    answerChanged: z.boolean(),
    sameMeaning: z.boolean().nullable(),
    sources: Changes.openapi({ description: "The cited sources' ids." }),
    citationsNamingNothing: z.number().int(),
    toolCalls: Changes.openapi({ description: "The tool calls, as name and arguments." }),
  })
  .openapi("RerunTurn");

const Totals = z
  .object({
    turns: z.number().int(),
    notRerun: z.number().int(),
    answersChanged: z.number().int(),
    sameMeaning: z.number().int(),
    sourcesLost: z.number().int(),
    sourcesAdded: z.number().int(),
    citationsNamingNothing: z.number().int(),
    toolCallsAdded: z.number().int(),
    toolCallsDropped: z.number().int(),
    failuresOriginal: z.number().int(),
    failuresCandidate: z.number().int(),
    tokensOriginal: z.number().int(),
    tokensCandidate: z.number().int(),
  })
  .openapi("RerunTotals");

const RerunResultView = z.object({
  batchId: z.string(),
  threads: z.number().int(),
  turns: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int(),
});

export const RerunView = z
  .object({
    batchId: z.string(),
    status: z.string().openapi({ description: "The batch workflow's status, such as RUNNING or COMPLETED." }),
    agent: z.string(),
    candidate: z.string(),
    result: RerunResultView.nullable().openapi({ description: "The batch's counts, once it completed." }),
    temporalUi: z.string().nullable().openapi({ description: "The batch workflow in the Temporal UI." }),
    threads: z
      .array(
        z.object({
          original: z.string(),
          candidate: z.string(),
          temporalUi: z.object({ original: z.string().nullable(), candidate: z.string().nullable() }),
        }),
      )
      .openapi({ description: "The caller's recorded threads of the batch, each with its candidate thread." }),
    report: z.object({ turns: z.array(TurnComparison), totals: Totals }),
  })
  .openapi("Rerun");

export const WhatIfQuery = z.object({
  candidate: z.string().min(1).openapi({
    description: "The catalog's agent whose request to compare with the recorded one.",
    example: "candidate",
  }),
});

export const WhatIfParam = CallParam;

const Form = z.enum(["FULL", "COMPRESSED", "STUBBED"]);

export const WhatIfView = z
  .object({
    n: z.number().int(),
    agent: z.string().openapi({ description: "The agent that recorded the thread." }),
    candidate: z.string(),
    same: z.boolean().openapi({ description: "Whether the candidate's request equals the recorded one (same hash)." }),
    built: z.object({ recorded: z.boolean(), candidate: z.boolean() }).openapi({
      description: "Whether each side's node builds a request at that call.",
    }),
    difference: z
      .object({
        messages: z
          .array(z.number().int())
          .openapi({ description: "The places (from 0) of the messages that differ." }),
        toolsAdded: z.array(z.string()),
        toolsRemoved: z.array(z.string()),
        toolsChanged: z.array(z.string()),
        characters: z.object({ recorded: z.number().int(), candidate: z.number().int() }),
        forms: z.array(z.object({ result: z.string(), recorded: Form, candidate: Form, by: z.string().nullable() })),
      })
      .nullable(),
  })
  .openapi("WhatIf");
