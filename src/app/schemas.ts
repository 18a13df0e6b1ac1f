/** The zod schemas of the app's bodies and answers: they validate requests and make the OpenAPI document. */
import { z } from "@hono/zod-openapi";

/** Any JSON value: the agent's input type parses it. */
// z.json() is recursive, which the OpenAPI generator cannot walk: any JSON value, described.
const Json = z.unknown().openapi({ description: "A JSON value." });

export const ThreadIdParam = z.object({
  threadId: z
    .string()
    .min(1)
    .openapi({ param: { name: "threadId", in: "path" }, example: "3f0c9f0e-0d7a-4c1e-9b1f-0c4d5e6f7a8b" }),
});

export const CallParam = ThreadIdParam.extend({
  n: z.coerce
    .number()
    .int()
    .positive()
    .openapi({
      param: { name: "n", in: "path" },
      description: "The model call's number in the thread, from 1.",
      example: 1,
    }),
});

export const OpenThreadBody = z
  .object({
    agent: z.string().min(1).openapi({ description: "The agent's name in the catalog.", example: "assistant" }),
    input: Json.openapi({
      description: "The turn's input: the agent's input type parses it.",
      example: "How often is bulky waste picked up?",
    }),
    model: z
      .string()
      .min(1)
      .nullable()
      .optional()
      .openapi({ description: "The model to run the turn on; default the agent's." }),
  })
  .openapi("OpenThread");

export const NextTurnBody = OpenThreadBody.omit({ agent: true }).openapi("NextTurn");

export const StartedTurn = z
  .object({
    threadId: z.string(),
    workflowId: z.string(),
    runId: z.string(),
    events: z.string().openapi({ description: "The URL of the thread's event stream (Server-Sent Events)." }),
    temporalUi: z
      .string()
      .nullable()
      .openapi({ description: "The turn in the Temporal UI, or null when the app has no UI URL." }),
    recorded: z.boolean().openapi({ description: "Whether a worker recorded the turn's input before the answer." }),
  })
  .openapi("StartedTurn");

export const EventsQuery = z.object({
  after: z.coerce
    .number()
    .int()
    .nonnegative()
    .optional()
    .openapi({
      param: { name: "after", in: "query" },
      description: "Send the events after this position (the `id` of the last event received); Last-Event-ID wins.",
    }),
  token: z
    .string()
    .min(1)
    .optional()
    .openapi({
      param: { name: "token", in: "query" },
      description:
        "A browser token of this thread (POST /threads/{threadId}/token), for a client that cannot send the " +
        "`Authorization` header, such as a browser's EventSource. The header wins when both are sent.",
    }),
});

export const BrowserToken = z
  .object({
    token: z.string().openapi({ description: "Opens this thread's streams as `?token=` until `expiresAt`." }),
    threadId: z.string(),
    expiresAt: z
      .string()
      .openapi({ description: "When the token expires (ISO 8601).", example: "2026-01-01T12:05:00.000Z" }),
    events: z.string().openapi({ description: "The URL of the thread's event stream with the token." }),
    uiStream: z.string().openapi({ description: "The URL of the thread's UI message stream with the token." }),
  })
  .openapi("BrowserToken");

export const ThreadsQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .positive()
    .max(100)
    .optional()
    .openapi({ param: { name: "limit", in: "query" } }),
});

const UsageFields = {
  calls: z.number().int(),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  cachedTokens: z.number().int(),
  reasoningTokens: z.number().int(),
  totalTokens: z.number().int(),
  estimatedCalls: z.number().int().openapi({ description: "Calls whose provider reported no usage: estimated." }),
  cost: z.number().openapi({ description: "US dollars under the catalog's price table, for the priced calls." }),
  unpricedCalls: z.number().int().openapi({ description: "Calls of models the price table does not price." }),
};

const Usage = z.object(UsageFields).openapi("Usage");

const Passage = z.object({
  number: z.number(),
  sourceId: z.string().nullable(),
  type: z.string().nullable(),
  text: z.string().nullable(),
});

export const ThreadView = z
  .object({
    threadId: z.string(),
    agent: z.string(),
    principal: z.string().nullable(),
    position: z
      .number()
      .openapi({ description: "The position of the thread's last event: follow the events after it." }),
    running: z.boolean().openapi({ description: "Whether a turn of the thread is running." }),
    temporalUi: z
      .string()
      .nullable()
      .openapi({ description: "The thread's turns in the Temporal UI, or null when the app has no UI URL." }),
    turns: z.array(
      z.object({
        position: z.number(),
        input: Json,
        model: z.string().nullable(),
        principal: z.string().nullable(),
        answer: z
          .object({
            text: z.string(),
            content: z.string(),
            citations: z.array(z.object({ marker: z.string(), at: z.number(), passages: z.array(Passage) })),
          })
          .nullable(),
        toolCalls: z.array(
          z.object({
            id: z.string(),
            name: z.string(),
            arguments: Json,
            result: z.string().nullable(),
            error: z.string().nullable(),
            requests: z
              .array(
                z.object({
                  requestId: z.string(),
                  kind: z.enum(["question", "approval"]),
                  text: z.string(),
                  answer: z
                    .object({ payload: Json })
                    .nullable()
                    .openapi({ description: "The recorded answer (an approval's `{ approved, reason? }`), or null." }),
                }),
              )
              .openapi({ description: "What the call asked a person (its approval, its questions), in order." }),
          }),
        ),
        failures: z.array(z.object({ error: z.string(), message: z.string() })),
        calls: z.array(z.number()),
        usage: Usage.openapi({ description: "The turn's model calls, its delegated tasks' included." }),
      }),
    ),
    usage: Usage.openapi({ description: "Every model call of the thread." }),
    prices: z.string().openapi({ description: "The version of the price table that `cost` is counted at." }),
  })
  .openapi("Thread");

export const ThreadList = z
  .object({
    threads: z.array(
      z.object({ threadId: z.string(), agent: z.string().nullable(), startedAt: z.string().nullable(), input: Json }),
    ),
  })
  .openapi("ThreadList");

const Form = z.enum(["FULL", "COMPRESSED", "STUBBED"]);

export const CallView = z
  .object({
    n: z.number(),
    stream: z.string(),
    node: z.string().nullable(),
    model: z.string().nullable(),
    requestHash: z.string().nullable(),
    matches: z.boolean().openapi({ description: "Whether the rebuilt request has the hash the call recorded." }),
    request: z
      .object({
        messages: Json,
        tools: z.array(z.object({ name: z.string(), description: z.string(), parameters: Json })),
      })
      .nullable(),
    explain: z.array(
      z.object({
        result: z.string(),
        form: Form,
        by: z.string(),
        at: z.number(),
      }),
    ),
    kept: z
      .array(
        z.object({ result: z.string(), id: z.string(), type: z.string(), form: Form, text: z.string().nullable() }),
      )
      .openapi({
        description:
          "The elements of shrunk results that floors kept in a higher form, such as cited passages kept whole.",
      }),
    window: z
      .object({ tokens: z.number(), limit: z.number(), outputReserve: z.number(), startAt: z.number() })
      .nullable()
      .openapi({
        description: "The request's estimated tokens against the model's window; null when the builder checks no size.",
      }),
    compactions: z.array(z.object({ position: z.number(), summary: z.string(), keptFrom: z.number() })),
    reopens: z.array(
      z.object({
        position: z.number(),
        callId: z.string().nullable(),
        elements: z.array(z.string()),
        results: z.array(z.string()),
      }),
    ),
    usage: z
      .object({
        promptTokens: z.number().int(),
        completionTokens: z.number().int(),
        cachedTokens: z.number().int().optional(),
        reasoningTokens: z.number().int().optional(),
        estimated: z.boolean().optional(),
        cost: z.number().nullable(),
      })
      .openapi({ description: "What the call used, and its cost in US dollars (null: its model is not priced)." }),
  })
  .openapi("ModelCall");

export const Cancelled = z
  .object({ threadId: z.string(), workflowId: z.string(), cancelled: z.literal(true) })
  .openapi("Cancelled");

export const AgentList = z.object({ agents: z.array(z.string()) }).openapi("AgentList");

export const RequestParam = ThreadIdParam.extend({
  requestId: z
    .string()
    .min(1)
    .openapi({ param: { name: "requestId", in: "path" }, example: "mail-1:approval" }),
});

export const PendingRequestView = z
  .object({
    requestId: z
      .string()
      .openapi({ description: "The id an answer names (POST /threads/{threadId}/requests/{requestId})." }),
    kind: z.enum(["question", "approval"]),
    text: z.string().openapi({ description: "What the person reads: the question, or which call waits for approval." }),
    stream: z.string().openapi({ description: "The stream that asks: `main`, or a delegated task's." }),
    callId: z.string().nullable(),
    tool: z.string().nullable().openapi({ description: "The tool that asks or waits for approval." }),
    arguments: Json.openapi({ description: "The arguments of the call that waits for approval, or null." }),
    schema: Json.openapi({
      description:
        "The JSON schema the answer's payload must fit, or null for any JSON. An approval's is `{ approved: boolean, reason?: string }`.",
    }),
    deadline: z.string().nullable().openapi({ description: "When the wait ends (ISO 8601), or null for none." }),
    hasDefault: z.boolean().openapi({ description: "Whether a passed deadline records a default answer." }),
    position: z.number().openapi({ description: "The Request event's position in the thread's log." }),
  })
  .openapi("PendingRequest");

export const RequestList = z
  .object({
    threadId: z.string(),
    running: z.boolean().openapi({ description: "Whether a turn of the thread runs: only a running turn waits." }),
    requests: z.array(PendingRequestView),
  })
  .openapi("PendingRequests");

export const AnswerBody = z
  .object({
    payload: Json.optional().openapi({ description: "The answer: JSON that fits the request's schema." }),
    approved: z.boolean().optional().openapi({ description: "For an approval: whether the call may run." }),
    reason: z.string().optional().openapi({ description: "For an approval: why, for the model to read." }),
  })
  .openapi("Answer", {
    description:
      'Send `{ "payload": ... }`, or for an approval `{ "approved": true }` or `{ "approved": false, "reason": "..." }`.',
  });

export const Answered = z
  .object({
    threadId: z.string(),
    requestId: z.string(),
    seq: z.number().openapi({ description: "The recorded Response's seq on its stream." }),
  })
  .openapi("Answered");
