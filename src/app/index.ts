/** soev-agents/app: the HTTP app (createApp on Hono), serveApp, and the parts that routes of your own use. */
export { createApp } from "./app.js";
export type { AppEnv, AppParts, SoevApp } from "./app.js";
export { serveApp } from "./serve.js";
export type { ServeOptions, ServedApp } from "./serve.js";
export { DEFAULT_APP_LIMITS, DEFAULT_TEMPORAL_UI } from "./options.js";
export type { AppOptions, AppLimits, PrincipalOf } from "./options.js";
export {
  ProblemError,
  ProblemSchema,
  PROBLEM_TYPE,
  problemContent,
  problemResponse,
  threadNotFound,
} from "./problems.js";
export { ownedThread, turnRunning } from "./routes.js";
export { requestViews } from "./requests.js";
export { followThread, eventData } from "./follow.js";
export type { TurnEnding, FollowOptions } from "./follow.js";
export { turnsOf, callOf } from "./views.js";
export type {
  TurnView,
  ToolCallView,
  RequestDecision,
  CallView,
  CitedPassage,
  ExplainedResult,
  FormName,
  KeptElement,
  WindowUse,
} from "./views.js";
export { playgroundRoutes, PLAYGROUND_HTML, PLAYGROUND_CSS, PLAYGROUND_MODULES } from "./playground/page.js";
