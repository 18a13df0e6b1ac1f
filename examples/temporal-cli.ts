/**
 * The Temporal CLI that the demo and `npm run app` start a dev server with. The order of attempts:
 * $TEMPORAL_CLI_PATH, `temporal` on PATH, the build scripts/provision-temporal.sh caches, a build with Go
 * through that script; else the Temporal SDK downloads the dev server (`cached-download`). Only when that
 * fails too does the caller get one line naming the ways to get a CLI.
 */
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { accessSync, constants, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import type { EphemeralServerExecutable } from "@temporalio/testing";

/** No Temporal CLI was found and the SDK could not download one: the message is one line that says what to do. */
export class TemporalCliMissingError extends Error {
  override name = "TemporalCliMissingError";
}

/** The ways to get the CLI, in the one line printed when there is none. */
export const GET_THE_CLI =
  "A local Temporal dev server needs the Temporal CLI: install it (https://docs.temporal.io/cli, or `brew install temporal`), " +
  "run `bash scripts/provision-temporal.sh` (builds it with Go), set TEMPORAL_CLI_PATH to a `temporal` binary, " +
  "or set TEMPORAL_ADDRESS to a running Temporal server.";

/** One attempt of the lookup, in the order they are made. */
export type CliAttempt = "TEMPORAL_CLI_PATH" | "PATH" | "cache" | "go" | "download";

/** What the lookup reads and does; each defaults to this machine, and a test replaces them. */
export interface TemporalCliOptions<Server> {
  /** Starts the dev server with the executable found (an existing path, or the SDK's download). */
  start: (executable: EphemeralServerExecutable) => Promise<Server>;
  /** The environment: TEMPORAL_CLI_PATH, PATH, XDG_CACHE_HOME and HOME (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Where Go may be besides PATH (default: /usr/local/go/bin/go, where scripts/provision-temporal.sh looks too). */
  goPaths?: readonly string[];
  /** Builds the CLI with Go; resolves to its path (default: runs scripts/provision-temporal.sh). */
  build?: () => Promise<string>;
  /** The size in bytes of the archive the SDK would download, or null when unknown (default: asks temporal.download). */
  downloadSize?: () => Promise<number | null>;
  /** Where progress goes (default console.log). */
  say?: (line: string) => void;
  /** Called before each attempt (for tests and logs). */
  attempt?: (which: CliAttempt) => void;
}

/** Start a dev server with the first Temporal CLI found, else with the one the SDK downloads. */
export async function startWithTemporalCli<Server>(options: TemporalCliOptions<Server>): Promise<Server> {
  const path = await findTemporalCli(options);
  if (path) return options.start({ type: "existing-path", path });
  const say = options.say ?? console.log;
  options.attempt?.("download");
  const size = await (options.downloadSize ?? sdkDownloadSize)().catch(() => null);
  say(
    `No Temporal CLI found and no Go to build one: the Temporal SDK downloads the dev server ` +
      `(${size === null ? "size unknown" : `${(size / 1e6).toFixed(0)} MB`}, kept for a day in ${tmpdir()}) ...`,
  );
  try {
    return await options.start({ type: "cached-download" });
  } catch (error) {
    const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new TemporalCliMissingError(`The download failed (${why}). ${GET_THE_CLI}`);
  }
}

/** The CLI's path from the environment, PATH, the script's cache or a Go build; null when none and no Go. */
export async function findTemporalCli(options: Omit<TemporalCliOptions<unknown>, "start">): Promise<string | null> {
  const env = options.env ?? process.env;
  const attempt = options.attempt ?? (() => {});
  attempt("TEMPORAL_CLI_PATH");
  const given = env.TEMPORAL_CLI_PATH;
  if (given) {
    if (!isExecutable(given))
      throw new TemporalCliMissingError(`TEMPORAL_CLI_PATH=${given} is not an executable file. ${GET_THE_CLI}`);
    return given;
  }
  attempt("PATH");
  const onPath = onSearchPath(env, "temporal");
  if (onPath) return onPath;
  attempt("cache");
  // The folder scripts/provision-temporal.sh builds into (its CACHE_DIR).
  const cached = join(env.XDG_CACHE_HOME || join(env.HOME ?? "", ".cache"), "soev-temporal", "bin", "temporal");
  if (isExecutable(cached)) return cached;
  attempt("go");
  const go = onSearchPath(env, "go") ?? (options.goPaths ?? ["/usr/local/go/bin/go"]).find(isExecutable);
  if (!go) return null;
  try {
    return await (options.build ?? buildWithScript)();
  } catch {
    // The script said why on stderr; the SDK's download is the next way.
    return null;
  }
}

function onSearchPath(env: NodeJS.ProcessEnv, name: string): string | undefined {
  return (env.PATH ?? "")
    .split(delimiter)
    .filter(Boolean)
    .map((folder) => join(folder, name))
    .find(isExecutable);
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Run scripts/provision-temporal.sh (it builds with Go, a few minutes, saying so on stderr); its last line is the path. */
async function buildWithScript(): Promise<string> {
  const script = join(import.meta.dirname, "../scripts/provision-temporal.sh");
  const child = promisify(execFile)("bash", [script], { maxBuffer: 1 << 20 });
  child.child.stderr?.pipe(process.stderr);
  const found = (await child).stdout.trim().split("\n").at(-1) ?? "";
  if (!isExecutable(found)) throw new Error(`provision-temporal.sh printed ${found}, which is not an executable.`);
  return found;
}

/**
 * The size of the archive the SDK downloads: the same question its core asks temporal.download (the CLI for
 * this platform and SDK version), then the archive's Content-Length. Null when either step does not answer.
 */
async function sdkDownloadSize(): Promise<number | null> {
  const arch = { x64: "amd64", arm64: "arm64" }[process.arch as string];
  const platform = { linux: "linux", darwin: "darwin", win32: "windows" }[process.platform as string];
  if (!arch || !platform) return null;
  const { version } = createRequire(import.meta.url)("@temporalio/testing/package.json") as { version: string };
  const query = new URLSearchParams({ arch, platform, format: "tar.gz", "sdk-name": "sdk-typescript" });
  query.set("sdk-version", version);
  const signal = AbortSignal.timeout(5_000);
  const info = await fetch(`https://temporal.download/cli/default?${query}`, { signal });
  if (!info.ok) return null;
  const { archiveUrl } = (await info.json()) as { archiveUrl?: string };
  if (!archiveUrl) return null;
  const head = await fetch(archiveUrl, { method: "HEAD", signal, redirect: "follow" });
  const length = Number(head.headers.get("content-length"));
  return head.ok && length > 0 ? length : null;
}
