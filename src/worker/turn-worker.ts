/** createTurnWorker and runWorker: a Temporal worker of the turn workflow and its activities for a catalog. */
import { readFileSync } from "node:fs";
import { VersioningBehavior } from "@temporalio/common";
import { NativeConnection, Worker, type WorkerOptions, type WorkflowBundleOption } from "@temporalio/worker";
import { createActivities } from "../../activities/index.js";
import { OutsideWorldError, ValueError } from "../domain/errors.js";
import type { LiveChannel } from "../ports/live.js";
import type { Observer } from "../ports/observer.js";
import type { Authorize } from "../temporal/authorize.js";
import type { AgentCatalog } from "../runtime/catalog.js";
import { IDS_ONLY_MARK } from "../../workflows/ids-only.js";
import { SearchAttributeRegistrationError } from "../temporal/errors.js";
import { registerSearchAttributes } from "../temporal/search-attributes.js";
import { temporalSettings } from "../temporal/settings.js";
import { bundleTurnWorkflows } from "./bundle.js";

/**
 * Worker Deployment versioning: the worker serves one version of a deployment, and each turn is pinned to
 * the version that started it, so no turn mixes two versions of the code (README: "Rolling out a change").
 */
export interface TurnDeployment {
  /** The deployment's name, the same for every version of the app's workers. */
  name: string;
  /** The version's build id; default the catalog's version (`new AgentCatalog(..., { version })`). */
  buildId?: string;
  /** runWorker only: make this version the deployment's current one once it polls, so new turns go to it. Default true. */
  makeCurrent?: boolean;
}

/** Worker options that soev-agents sets itself: everything else of WorkerOptions passes through. */
type OwnWorkerOptions =
  | "connection"
  | "namespace"
  | "taskQueue"
  | "activities"
  | "workflowsPath"
  | "workflowBundle"
  | "workerDeploymentOptions"
  | "useVersioning"
  | "buildId";

/**
 * What a turn worker runs: the catalog, where it polls, and any other Temporal WorkerOptions (interceptors,
 * plugins, sinks, dataConverter, identity, concurrency limits, shutdownGraceTime, ...), which pass through.
 */
export interface TurnWorkerOptions extends Omit<WorkerOptions, OwnWorkerOptions> {
  /** The agents, their store and the code version. */
  catalog: AgentCatalog;
  /** Watches the calls and events; default the catalog's observer. */
  observer?: Observer;
  /** Decides whether a turn may open, before its thread is read or written; default every turn may. */
  authorize?: Authorize;
  /** The live channel model calls stream their fragments onto (the app's, to follow turns live); none: no streaming. */
  live?: LiveChannel;
  /** Default: the settings' task queue (TEMPORAL_TASK_QUEUE, else "soev-agents"). */
  taskQueue?: string;
  /** Default: the settings' namespace (the profile or TEMPORAL_NAMESPACE, else "default"). */
  namespace?: string;
  /** A connection to use (the caller closes it); default runWorker opens one from the settings and closes it. */
  connection?: NativeConnection;
  /** The profile of the Temporal config file that runWorker connects with; default TEMPORAL_PROFILE, else "default". */
  profile?: string;
  /** A workflow bundle made before (bundleTurnWorkflows); default: bundle the workflows at start. */
  workflowBundle?: WorkflowBundleOption;
  /** Worker Deployment versioning with pinned turns; default none (unversioned worker). */
  deployment?: TurnDeployment;
  /**
   * Run every turn idsOnly, whatever its starter asked: summaries, details and results carry no user text
   * (the starter's own summary and the input argument are the starter's: use the codec for those). With a
   * workflowBundle, make it with `bundleTurnWorkflows({ idsOnly: true })`. Default false.
   */
  idsOnly?: boolean;
}

/** How long a stopping worker lets its running activities finish before it cancels them, unless told. */
const DEFAULT_SHUTDOWN_GRACE = "30s";

const HEARTBEAT_THROTTLE = "500ms";

/** Create a worker for the turn workflow and its activities on `connection`. */
export async function createTurnWorker(options: TurnWorkerOptions & { connection: NativeConnection }): Promise<Worker> {
  const {
    catalog,
    observer,
    authorize,
    live,
    taskQueue,
    namespace,
    connection,
    profile,
    workflowBundle,
    deployment,
    idsOnly,
    bundlerOptions,
    ...passed
  } = options;
  const settings = taskQueue && namespace ? null : temporalSettings({ ...(profile ? { profile } : {}) });
  if (idsOnly === true && workflowBundle) checkIdsOnlyBundle(workflowBundle);
  // Without a bundle, bundle here (quietly) what Worker.create would: its interceptor modules, converters, plugins.
  const { workflowModules, ...interceptors } = passed.interceptors ?? {};
  const bundle =
    workflowBundle ??
    (await bundleTurnWorkflows({
      idsOnly: idsOnly === true,
      workflowInterceptorModules: workflowModules ?? [],
      failureConverterPath: passed.dataConverter?.failureConverterPath,
      payloadConverterPath: passed.dataConverter?.payloadConverterPath,
      ...bundlerOptions,
      plugins: passed.plugins,
    }));
  return Worker.create({
    shutdownGraceTime: DEFAULT_SHUTDOWN_GRACE,
    // The calls heartbeat every 500 ms (call-unit.ts) and the SDK sends them at this pace at most: a cancel
    // reaches a running model or tool call within about a second.
    maxHeartbeatThrottleInterval: HEARTBEAT_THROTTLE,
    ...passed,
    interceptors: workflowBundle ? passed.interceptors : interceptors,
    connection,
    namespace: namespace ?? settings!.namespace,
    taskQueue: taskQueue ?? settings!.taskQueue,
    activities: createActivities({
      catalog,
      ...(observer ? { observer } : {}),
      ...(authorize ? { authorize } : {}),
      ...(live ? { live } : {}),
    }),
    ...(deployment ? { workerDeploymentOptions: deploymentOptions(deployment, catalog) } : {}),
    workflowBundle: bundle,
  });
}

/** Refuse a bundle made without the idsOnly interceptor for a worker that forces idsOnly. */
function checkIdsOnlyBundle(bundle: WorkflowBundleOption): void {
  const code = "code" in bundle ? bundle.code : readFileSync(bundle.codePath, "utf8");
  if (!code.includes(IDS_ONLY_MARK))
    throw new ValueError(
      "This worker forces idsOnly, but its workflowBundle was made without it: make the bundle with " +
        "bundleTurnWorkflows({ idsOnly: true }), or let the worker bundle the workflows itself.",
    );
}

/** The worker's deployment version: the build id defaults to the catalog's version, and turns are pinned. */
function deploymentOptions(
  deployment: TurnDeployment,
  catalog: AgentCatalog,
): WorkerOptions["workerDeploymentOptions"] {
  const buildId = deployment.buildId ?? catalog.version;
  if (!deployment.name) throw new ValueError("A worker deployment needs a name (deployment.name).");
  if (!buildId) {
    throw new ValueError(
      "A versioned worker needs a build id: give the catalog a version (new AgentCatalog(store, agents, { version })) or deployment.buildId.",
    );
  }
  return {
    version: { deploymentName: deployment.name, buildId },
    useWorkerVersioning: true,
    defaultVersioningBehavior: VersioningBehavior.PINNED,
  };
}

/** What runWorker adds to a turn worker's options: a signal that stops it. */
export interface RunWorkerOptions extends TurnWorkerOptions {
  /** Stops the worker when it aborts, as SIGINT and SIGTERM do. */
  signal?: AbortSignal;
}

/**
 * Run a worker for the catalog until the process gets SIGINT or SIGTERM, or `signal` aborts; then it
 * drains: it polls no more and lets running activities finish (shutdownGraceTime, default 30 s). It
 * connects with the settings (temporalSettings) unless given a connection, and through that same
 * connection first registers the turn's search attributes (a server that refuses, such as a cloud
 * namespace, gets them registered by its operator: the worker warns and runs). With a `deployment`, it
 * makes its version the current one once it polls (unless `makeCurrent: false`).
 *
 * @example
 * ```ts
 * import { AgentCatalog } from "soev-agents/runtime";
 * import type { ReActAgent } from "soev-agents/toolkit";
 * import { runWorker, storeFromEnvironment } from "soev-agents/worker";
 *
 * declare const assistant: ReActAgent;
 * const catalog = new AgentCatalog(await storeFromEnvironment(), { assistant }, { version: "2026-01" });
 * await runWorker({ catalog, taskQueue: "soev-agents" }); // until SIGINT or SIGTERM
 * ```
 */
export async function runWorker(options: RunWorkerOptions): Promise<void> {
  const { signal, ...workerOptions } = options;
  const settings = temporalSettings({ ...(options.profile ? { profile: options.profile } : {}) });
  const namespace = options.namespace ?? settings.namespace;
  const owned = options.connection ? null : await NativeConnection.connect(settings.connection);
  const connection = options.connection ?? owned!;
  try {
    await registerOrWarn(connection, namespace);
    const worker = await createTurnWorker({
      ...workerOptions,
      connection,
      namespace,
      taskQueue: options.taskQueue ?? settings.taskQueue,
    });
    const stop = () => worker.shutdown();
    signal?.addEventListener("abort", stop, { once: true });
    try {
      const running = worker.run();
      const deployment = options.deployment;
      if (deployment && deployment.makeCurrent !== false) {
        const version = worker.options.workerDeploymentOptions!.version;
        await makeCurrentWhilePolling(connection, namespace, version, worker).catch(async (error: unknown) => {
          worker.shutdown();
          await running.catch(() => {});
          throw error;
        });
      }
      await running;
    } finally {
      signal?.removeEventListener("abort", stop);
    }
  } finally {
    await owned?.close();
  }
}

/**
 * Make the worker's version the deployment's current one: the server accepts that only once it has seen
 * the version poll, so this tries again for up to a minute, and gives up quietly when the worker stops.
 */
async function makeCurrentWhilePolling(
  connection: NativeConnection,
  namespace: string,
  version: { deploymentName: string; buildId: string },
  worker: Worker,
): Promise<void> {
  let lastError: unknown = null;
  for (let attempt = 0; attempt < 120; attempt++) {
    const state = worker.getState();
    if (state !== "INITIALIZED" && state !== "RUNNING") return;
    if (state === "RUNNING") {
      try {
        await connection.workflowService.setWorkerDeploymentCurrentVersion({
          namespace,
          deploymentName: version.deploymentName,
          buildId: version.buildId,
          identity: worker.options.identity,
        });
        return;
      } catch (error) {
        lastError = error;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new OutsideWorldError(
    `Could not make version "${version.buildId}" of worker deployment "${version.deploymentName}" current in namespace "${namespace}": ` +
      `${lastError instanceof Error ? lastError.message : String(lastError)}. Does the server support Worker Deployments (Temporal 1.28 or later)?`,
    { cause: lastError },
  );
}

async function registerOrWarn(connection: NativeConnection, namespace: string): Promise<void> {
  try {
    await registerSearchAttributes(connection, namespace);
  } catch (error) {
    if (!SearchAttributeRegistrationError.isInstance(error)) throw error;
    console.warn(
      `soev-agents worker: ${error.message} Register SoevThreadId and SoevAgent (Keyword) and SoevThreadTokens (Int) in the namespace, or turns will not start.`,
    );
  }
}
