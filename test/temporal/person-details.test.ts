// What the Temporal UI shows while a turn waits for a person: the current details escape the request's
// text (a call's arguments, a question) so it reads as written, and in idsOnly mode neither the details,
// the status Query nor the history hold it.
import type { Client } from "@temporalio/client";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { TurnStatus } from "../../src/temporal/contract.js";
import { answerRequest, turnStatus } from "../../src/temporal/requests.js";
import { startTurn } from "../../src/temporal/start-turn.js";
import { CLERK_MODEL, clerkCatalog } from "../fixtures/person.js";
import { uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import { historyText, withWorker, type TestStore, useClientAndStore } from "./harness.js";

// A word of the user's that must not reach the UI in idsOnly mode, in markdown that must show as written.
const SECRET = "pelican4242";
const SUBJECT = `**Invoice** [${SECRET}](http://x) \`code\``;
const SCRIPT = [
  { toolCalls: [{ id: "mail-1", name: "send_mail", arguments: { to: "ada", subject: SUBJECT } }] },
  "Done.",
];

let temporal: TestClient;
let store: TestStore;
useClientAndStore((opened) => ({ temporal, store } = opened));

async function statusWhenWaiting(client: Client, threadId: string): Promise<TurnStatus> {
  for (;;) {
    const status = await turnStatus(client, threadId).catch(() => null);
    if (status !== null && status.state === "waiting" && status.requests.length > 0) return status;
    await sleep(100);
  }
}

/** Start a clerk turn that waits for approval of a mail whose subject is SUBJECT; run `check` while it waits, then deny it. */
async function whileWaiting(
  idsOnly: boolean,
  check: (details: string, status: TurnStatus, workflowId: string) => Promise<void>,
): Promise<void> {
  const { catalog } = clerkCatalog(store.store, { script: SCRIPT });
  const taskQueue = uniqueTaskQueue("person-details");
  await withWorker(catalog, taskQueue, async () => {
    const turn = await startTurn(temporal.client, {
      agent: "clerk",
      input: { payload: "Mail the invoice.", model: CLERK_MODEL },
      taskQueue,
      settings: { idsOnly },
    });
    const status = await statusWhenWaiting(temporal.client, turn.threadId);
    const metadata = (await turn.workflow.query("__temporal_workflow_metadata")) as { currentDetails?: string };
    await check(metadata.currentDetails ?? "", status, turn.workflowId);
    await answerRequest(temporal.client, turn.threadId, { requestId: "mail-1:approval", payload: { approved: false } });
    await turn.result();
  });
}

describe("the UI's details while a turn waits for a person", { timeout: 120_000 }, () => {
  it("escape the markdown of the call that waits for approval", async () => {
    await whileWaiting(false, async (details, status) => {
      expect(details).toContain("**clerk** waits for a person: approval of send\\_mail");
      expect(details).toContain(`\\*\\*Invoice\\*\\* \\[${SECRET}\\]\\(http://x\\) \\\`code\\\``);
      expect(details).toContain("Request `mail-1:approval`");
      expect(status.requests[0]!.text).toContain(SECRET);
    });
  });

  it("in idsOnly mode name the kind, the tool and the request only: no argument in details, status or history", async () => {
    await whileWaiting(true, async (details, status, workflowId) => {
      expect(details).toBe(
        "**clerk** waits for a person: approval of a call of `send_mail`. Request `mail-1:approval`: answer with the Update `answer`.",
      );
      expect(status.requests[0]).toMatchObject({ requestId: "mail-1:approval", text: "Approve a call of send_mail." });
      const history = await historyText(temporal.client, workflowId);
      expect(history).toContain("mail-1:approval");
      expect(history).not.toContain(SECRET);
    });
  });
});
