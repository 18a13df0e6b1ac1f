/** temporalSettings: where a worker or a client finds Temporal, from the Temporal config file and the environment. */
import { loadClientConnectConfig } from "@temporalio/envconfig";
import type { NativeConnectionOptions } from "@temporalio/worker";
import { DEFAULT_TASK_QUEUE } from "./contract.js";

/** Where the worker finds Temporal: the connection (address, TLS, API key, gRPC metadata), namespace and task queue. */
export interface TemporalSettings {
  connection: NativeConnectionOptions & { address: string };
  namespace: string;
  taskQueue: string;
}

/** Where temporalSettings reads: a profile of the Temporal config file, and the environment. */
export interface TemporalSettingsOptions {
  /** The profile of the config file; default TEMPORAL_PROFILE, else "default". */
  profile?: string;
  /** The environment; default process.env. Empty values count as unset. */
  env?: NodeJS.ProcessEnv;
}

/**
 * The settings of @temporalio/envconfig: the profile of the Temporal config file (TEMPORAL_CONFIG_FILE,
 * else ~/.config/temporalio/temporal.toml) with the environment on top (TEMPORAL_ADDRESS, default
 * localhost:7233; TEMPORAL_NAMESPACE, default "default"; TEMPORAL_API_KEY; TEMPORAL_TLS and
 * TEMPORAL_TLS_*), and TEMPORAL_TASK_QUEUE (default "soev-agents").
 */
export function temporalSettings(options: TemporalSettingsOptions = {}): TemporalSettings {
  const env = Object.fromEntries(
    Object.entries(options.env ?? process.env).filter((entry): entry is [string, string] => !!entry[1]),
  );
  const loaded = loadClientConnectConfig({
    ...(options.profile ? { profile: options.profile } : {}),
    overrideEnvVars: env,
  });
  return {
    connection: { ...loaded.connectionOptions, address: loaded.connectionOptions.address || "localhost:7233" },
    namespace: loaded.namespace || "default",
    taskQueue: env.TEMPORAL_TASK_QUEUE || DEFAULT_TASK_QUEUE,
  };
}
