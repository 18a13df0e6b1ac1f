/** The baseline's activities: a chat-completions call with the whole message list, and the report tool. */
import OpenAI from "openai";
import { MODEL_NAME, TOOL, report } from "../temporal/scripted.js";

/** A chat-completions message as the baseline keeps it. */
export interface BaselineMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | null;
  tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** The baseline's activities, as the workflow calls them. */
export interface BaselineActivities {
  callModel(messages: BaselineMessage[]): Promise<BaselineMessage>;
  callTool(name: string, argumentsJson: string): Promise<string>;
}

/** The activities on a client of the scripted server. */
export function baselineActivities(client: OpenAI): BaselineActivities {
  return {
    async callModel(messages) {
      const completion = await client.chat.completions.create({
        model: MODEL_NAME,
        messages: messages as OpenAI.ChatCompletionMessageParam[],
        tools: [
          {
            type: "function",
            function: {
              ...TOOL,
              parameters: { type: "object", properties: { part: { type: "integer" } }, required: ["part"] },
            },
          },
        ],
      });
      const message = completion.choices[0]!.message;
      return {
        role: "assistant",
        content: message.content,
        ...(message.tool_calls?.length ? { tool_calls: message.tool_calls as BaselineMessage["tool_calls"] } : {}),
      };
    },
    async callTool(name, argumentsJson) {
      if (name !== TOOL.name) throw new Error(`The baseline has no tool "${name}".`);
      return report((JSON.parse(argumentsJson) as { part: number }).part);
    },
  };
}
