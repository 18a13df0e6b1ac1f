/** What the app's routes share: the context they read and the parts createApp gives them. */
import type { Client } from "@temporalio/client";
import type { Clock } from "../ports/clock.js";
import type { LiveChannel } from "../ports/live.js";
import type { AgentCatalog } from "../runtime/catalog.js";
import type { Authorize } from "../temporal/authorize.js";
import type { TurnSettings } from "../temporal/contract.js";
import type { ResolvedLimits } from "./options.js";

/** What every route of the app can read from its context: the principal of the request's API key. */
export interface AppEnv {
  Variables: { principal: string };
}

/** The parts of an app that its routes share. */
export interface AppParts {
  client: Client;
  catalog: AgentCatalog;
  live: LiveChannel;
  authorize: Authorize;
  taskQueue: string;
  defaultModel: string | null;
  settings: TurnSettings | undefined;
  temporalUi: string | null;
  limits: ResolvedLimits;
  /** The secret browser tokens are signed with. */
  tokenSecret: Uint8Array;
  /** Where the app reads the time. */
  clock: Clock;
  /** Aborts when the app closes: open event streams end. */
  closing: AbortSignal;
}
