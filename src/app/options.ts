/** The options of createApp, their defaults in one place, checked when the app is made. */
import type { Client } from "@temporalio/client";
import { ValueError } from "../domain/errors.js";
import type { LiveChannel } from "../ports/live.js";
import type { Clock } from "../ports/clock.js";
import type { Observer } from "../ports/observer.js";
import type { AgentCatalog } from "../runtime/catalog.js";
import type { Authorize } from "../temporal/authorize.js";
import type { TurnSettings } from "../temporal/contract.js";

/** Maps the API key of a request (`Authorization: Bearer <key>`) to its principal, or null for a key it does not know. */
export type PrincipalOf = (apiKey: string) => string | null | Promise<string | null>;

/** The limits of the app. */
export interface AppLimits {
  /** The largest request body, in bytes; a larger one gets 413. Default 65536. */
  bodyBytes?: number;
  /** Seconds between keep-alive comments on an event stream. Default 15. */
  keepAliveSeconds?: number;
  /**
   * Seconds a start waits for a worker to record the turn's input before it answers anyway, and an answer
   * to a request that the trace shows waits for its turn's workflow to take it. Default 20.
   */
  startSeconds?: number;
  /** Seconds a browser token (POST /threads/{threadId}/token) is valid. Default 300. */
  tokenSeconds?: number;
}

/** What createApp needs: a Temporal client, the catalog, how API keys map to principals; the rest has defaults. */
export interface AppOptions {
  /** Starts, follows and cancels the turns (as workflows, through startTurn). */
  client: Client;
  /** The agents, their types and resources, and the store the app reads threads from (the workers' store). */
  catalog: AgentCatalog;
  /** Who an API key is. */
  principalOf: PrincipalOf;
  /** Asked before a turn opens; default: every principal may open any turn of its threads. */
  authorize?: Authorize;
  /** Enters each HTTP request's context (`request(headers, body)`). Default: the catalog's observer. */
  observer?: Observer;
  /** Where the workers publish the model's fragments. Default: an in-process channel, which `app.live` gives the worker. */
  live?: LiveChannel;
  /** The model a turn runs on when its request names none, such as "gpt-4.1-mini"; default null (the request must name one). */
  defaultModel?: string | null;
  /** The task queue the workers poll. Default TEMPORAL_TASK_QUEUE's default, "soev-agents". */
  taskQueue?: string;
  /** Timeouts and retries of the turns' activities. */
  settings?: TurnSettings;
  /** The base URL of the Temporal UI, for the link of each turn; null for none. Default "http://localhost:8233". */
  temporalUi?: string | null;
  limits?: AppLimits;
  /**
   * The host names the app answers to (the `Host` header, without its port); any other gets 421, so a web
   * page cannot reach the app through a name of its own pointed at it (DNS rebinding). Default the loopback
   * names: localhost, 127.0.0.1 and [::1]. Give the names your users reach it by, or null to answer any
   * host when a proxy in front checks it.
   */
  hosts?: readonly string[] | null;
  /**
   * The secret browser tokens are signed with (HMAC-SHA256), at least 32 bytes (`openssl rand -hex 32`).
   * Default: a random secret of the process, so its tokens die with it. Replicas of the app behind one load
   * balancer must share one (`npm run app:server` reads SOEV_TOKEN_SECRET), or a token one made is refused
   * by the others.
   */
  tokenSecret?: string | Uint8Array;
  /** Where the app reads the time (browser tokens' expiry). Default the machine's clock. */
  clock?: Clock;
}

/** The options with their defaults. */
export interface ResolvedLimits {
  bodyBytes: number;
  keepAliveSeconds: number;
  startSeconds: number;
  tokenSeconds: number;
}

/** The defaults of the limits. */
export const DEFAULT_APP_LIMITS: ResolvedLimits = {
  bodyBytes: 65_536,
  keepAliveSeconds: 15,
  startSeconds: 20,
  tokenSeconds: 300,
};

/** The default base URL of the Temporal UI: the dev server's. */
export const DEFAULT_TEMPORAL_UI = "http://localhost:8233";

/** The fewest bytes a token secret may have. */
const MIN_SECRET_BYTES = 32;

/** Check the options; returns the limits with their defaults. */
export function checkedLimits(options: AppOptions): ResolvedLimits {
  if (!options || typeof options !== "object")
    throw new ValueError("createApp needs options: { client, catalog, principalOf }.");
  if (!options.client?.workflow) throw new ValueError("createApp needs `client`, a Temporal Client.");
  if (typeof options.catalog?.agent !== "function") throw new ValueError("createApp needs `catalog`, an AgentCatalog.");
  if (typeof options.principalOf !== "function")
    throw new ValueError("createApp needs `principalOf`, a function from an API key to its principal (or null).");
  if (options.authorize !== undefined && typeof options.authorize !== "function")
    throw new ValueError("createApp's `authorize` must be a function of { principal, agent, threadId }.");
  if (
    options.hosts !== undefined &&
    options.hosts !== null &&
    (!Array.isArray(options.hosts) || options.hosts.some((name) => typeof name !== "string" || name === ""))
  )
    throw new ValueError('createApp\'s `hosts` must be a list of host names (such as ["app.example.com"]), or null.');
  if (options.tokenSecret !== undefined && tokenSecretOf(options.tokenSecret).length < MIN_SECRET_BYTES)
    throw new ValueError(
      `createApp's \`tokenSecret\` must have at least ${MIN_SECRET_BYTES} bytes: make one with \`openssl rand -hex 32\`.`,
    );
  const limits = { ...DEFAULT_APP_LIMITS, ...options.limits };
  for (const [name, value] of Object.entries(limits)) {
    if (typeof value !== "number" || !(value > 0))
      throw new ValueError(`createApp's limits.${name} must be a positive number, not ${JSON.stringify(value)}.`);
  }
  return limits;
}

/** The bytes of a token secret: a string's UTF-8. */
export function tokenSecretOf(secret: string | Uint8Array): Uint8Array {
  return typeof secret === "string" ? Buffer.from(secret, "utf8") : secret;
}
