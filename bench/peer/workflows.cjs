// The peer's turn workflow, as @temporalio/openai-agents' README builds one: the OpenAI Agents SDK's agent
// run by TemporalOpenAIRunner, the tool an activity (activityAsTool), a workflow per turn that takes the
// thread's items and returns them with the turn's. CommonJS on purpose: the workflow bundles only when
// @openai/agents-core is loaded with require(); its ESM build's dynamic import breaks webpack.
const { Agent } = require("@openai/agents-core");
const { TemporalOpenAIRunner, activityAsTool } = require("@temporalio/openai-agents/workflow");

const fetchReport = activityAsTool(
  {
    name: "fetch_report",
    description: "Fetch a part of the day's report.",
    parameters: {
      type: "object",
      properties: { part: { type: "integer", description: "The part of the report." } },
      required: ["part"],
      additionalProperties: false,
    },
  },
  { startToCloseTimeout: "1 minute" },
);

/** One turn: the thread's items so far and the prompt in, every item of the thread out. */
async function peerTurn(history, prompt) {
  const agent = new Agent({
    name: "Reader",
    instructions: "You read the day's report.",
    model: "bench-model",
    tools: [fetchReport],
  });
  const result = await new TemporalOpenAIRunner().run(agent, [...history, { role: "user", content: prompt }], {
    maxTurns: 50,
  });
  return result.history;
}

module.exports = { peerTurn };
