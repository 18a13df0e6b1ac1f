/**
 * The two deployments the live-latency bench follows turns through, each from the project's own entry
 * points in processes of their own, on one Temporal dev server and the stamping model (OPENAI_BASE_URL):
 * `npm run app` (app.ts: the app and its worker in one process, the in-process live channel, SQLite), and
 * `npm run app:server` with `npm run worker` (app-server.ts and worker.ts: two processes, the store and the
 * live channel on PostgreSQL).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/** A deployment that runs: the app's base URL, and how to stop its processes. */
export interface Deployment {
  url: string;
  stop(): Promise<void>;
}

/** What both deployments share. */
export interface DeploymentEnvironment {
  temporalAddress: string;
  taskQueue: string;
  /** The stamping model's base URL. */
  modelUrl: string;
}

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The API key of `npm run app`'s default SOEV_API_KEYS ("dev-key=dev"), which app-server.ts shares. */
export const API_KEY = "dev-key";

/** The environment of every process: the services, the model, a free port, and the default key. */
function environmentOf(environment: DeploymentEnvironment, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TEMPORAL_ADDRESS: environment.temporalAddress,
    TEMPORAL_NAMESPACE: "default",
    TEMPORAL_TASK_QUEUE: environment.taskQueue,
    OPENAI_BASE_URL: environment.modelUrl,
    OPENAI_API_KEY: "bench",
    OPENAI_MODEL: "bench-model",
    SOEV_MODEL: "",
    PORT: "0",
    SOEV_API_KEYS: "",
    ...extra,
  };
}

/** Spawn `script` (a .ts entry of the project); resolves with the first match of `ready` in its output. */
async function spawnEntry(
  script: string,
  env: NodeJS.ProcessEnv,
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, ["--import", "tsx", `${ROOT}${script}`], {
    env,
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let errors = "";
  child.stderr!.on("data", (piece: Buffer) => (errors = (errors + piece.toString()).slice(-4_000)));
  let output = "";
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    child.stdout!.on("data", (piece: Buffer) => {
      output += piece.toString();
      const found = ready.exec(output);
      if (found) resolve(found);
    });
    child.on("exit", (code) => reject(new Error(`${script} exited (${code}) before it was ready:\n${errors}`)));
  });
  child.stdout!.resume();
  return { child, match };
}

/** Stop a child with SIGTERM (the entries shut down gracefully on it), SIGKILL after 10 s. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(killer);
}

/** `npm run app` (app.ts) on the dev server: app, worker and the in-process live channel in one process. */
export async function oneProcess(environment: DeploymentEnvironment, dataFolder: string): Promise<Deployment> {
  const { child, match } = await spawnEntry(
    "app.ts",
    environmentOf(environment, { SOEV_DATA_DIR: dataFolder, DATABASE_URL: "" }),
    /soev-agents app: (http:\/\/\S+)/,
  );
  return { url: match[1]!, stop: () => stopChild(child) };
}

/**
 * `npm run app:server` and `npm run worker` (app-server.ts, worker.ts) on PostgreSQL at `databaseUrl`, their
 * tables in `schema`: the worker publishes the fragments with NOTIFY, the app LISTENs.
 */
export async function throughPostgres(
  environment: DeploymentEnvironment,
  databaseUrl: string,
  schema: string,
): Promise<Deployment> {
  const env = environmentOf(environment, { DATABASE_URL: databaseUrl, SOEV_DATABASE_SCHEMA: schema });
  // The worker first: it migrates the schema the app then finds. It is polling once it says where it serves.
  const worker = await spawnEntry("worker.ts", env, /soev-agents worker: task queue/);
  try {
    const app = await spawnEntry("app-server.ts", env, /"event":"listening","url":"([^"]+)"/);
    return {
      url: app.match[1]!,
      stop: async () => void (await Promise.all([stopChild(app.child), stopChild(worker.child)])),
    };
  } catch (error) {
    await stopChild(worker.child);
    throw error;
  }
}
