/**
 * The API's bodies as TypeScript types, inferred from the route schemas (which the OpenAPI document shows too):
 * one source of the shapes, so the playground's script compiles against what the server sends.
 */
import type { z } from "@hono/zod-openapi";
import type { AnswerBody, CallView, RequestList, ThreadView } from "./schemas.js";
import type { RerunView, WhatIfView } from "./rerun-schemas.js";

/** GET /threads/{threadId}: the thread's turns. */
export type Thread = z.infer<typeof ThreadView>;
/** One turn of a Thread. */
export type Turn = Thread["turns"][number];
/** A tool call of a Turn, with its result or error. */
export type TurnToolCall = Turn["toolCalls"][number];
/** A citation of a Turn's answer, with the passages it resolves to. */
export type TurnCitation = NonNullable<Turn["answer"]>["citations"][number];
/** A passage a citation resolves to. */
export type CitedPassage = TurnCitation["passages"][number];
/** GET /threads/{threadId}/calls/{n}: what the model saw at one call. */
export type ModelCall = z.infer<typeof CallView>;
/** GET /threads/{threadId}/requests: the questions and approvals the running turn waits on. */
export type PendingRequests = z.infer<typeof RequestList>;
/** One request of PendingRequests: an approval or a question, with its tool, arguments and schema. */
export type PendingRequest = PendingRequests["requests"][number];
/** POST /threads/{threadId}/requests/{requestId}: `{ payload }`, or an approval's `{ approved, reason? }`. */
export type AnswerInput = z.infer<typeof AnswerBody>;
/** A request a tool call made, with its recorded answer, as a Turn shows it. */
export type TurnRequest = TurnToolCall["requests"][number];
/** GET /reruns/{batchId}: a re-run batch's report over the caller's threads. */
export type RerunReportView = z.infer<typeof RerunView>;
/** One compared turn of a RerunReportView. */
export type RerunTurn = RerunReportView["report"]["turns"][number];
/** GET /threads/{threadId}/calls/{n}/whatif: a call's request under a candidate agent against the recorded one. */
export type WhatIfResult = z.infer<typeof WhatIfView>;
