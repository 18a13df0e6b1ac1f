/**
 * The peer-style baseline: a minimal hand-written agent workflow as the peers build one. Each model call
 * and each tool call is one activity, and each model activity gets the whole message list as its input.
 */
import { proxyActivities } from "@temporalio/workflow";
import type { BaselineActivities, BaselineMessage } from "./activities.js";

const { callModel, callTool } = proxyActivities<BaselineActivities>({ startToCloseTimeout: "1 minute" });

/** One turn: the thread's messages so far and the new user message in, every message of the thread out. */
export async function baselineTurn(messages: BaselineMessage[]): Promise<BaselineMessage[]> {
  const thread = [...messages];
  for (;;) {
    const reply = await callModel(thread);
    thread.push(reply);
    if (!reply.tool_calls?.length) return thread;
    for (const call of reply.tool_calls) {
      const content = await callTool(call.function.name, call.function.arguments);
      thread.push({ role: "tool", tool_call_id: call.id, content });
    }
  }
}
