/** A local Temporal dev server for the demo: the CLI the project provisions, its data in a file, its UI on. */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { createServer } from "node:net";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { Connection } from "@temporalio/client";

/** A running dev server: where it listens, its process, and how to stop it. */
export interface DevServer {
  address: string;
  uiUrl: string;
  pid: number;
  stop(): Promise<void>;
}

/** No Temporal CLI was found: the message is one line that says how to get one. */
export class TemporalCliMissingError extends Error {
  override name = "TemporalCliMissingError";
}

/** The ways to get the CLI, in the one line the demo prints when it has none. */
const GET_THE_CLI =
  "The demo needs the Temporal CLI to start a dev server: install it (https://docs.temporal.io/cli, or `brew install temporal`), " +
  "run `bash scripts/provision-temporal.sh` (builds it with Go), set TEMPORAL_CLI_PATH to a `temporal` binary, " +
  "or set TEMPORAL_ADDRESS to a running Temporal server.";

/** The Temporal CLI: $TEMPORAL_CLI_PATH, `temporal` on PATH, or the one scripts/provision-temporal.sh finds or builds. */
export async function temporalCli(): Promise<string> {
  const given = process.env.TEMPORAL_CLI_PATH;
  if (given) {
    if (!isExecutable(given))
      throw new TemporalCliMissingError(`TEMPORAL_CLI_PATH=${given} is not an executable file. ${GET_THE_CLI}`);
    return given;
  }
  const onPath = (process.env.PATH ?? "")
    .split(delimiter)
    .map((folder) => join(folder, "temporal"))
    .find(isExecutable);
  if (onPath) return onPath;
  try {
    const { stdout } = await promisify(execFile)(
      "bash",
      [join(import.meta.dirname, "../../scripts/provision-temporal.sh")],
      { maxBuffer: 1 << 20 },
    );
    const found = stdout.trim().split("\n").at(-1) ?? "";
    if (isExecutable(found)) return found;
  } catch {
    // The script says why on its stderr; the line below says what to do.
  }
  throw new TemporalCliMissingError(GET_THE_CLI);
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Start `temporal server start-dev` (on 7233 and 8233 when free), persisting to `dbFile`, and wait until it answers. */
export async function startDevServer(dbFile: string): Promise<DevServer> {
  const [port, uiPort] = [await freePort(7233), await freePort(8233)];
  const cli = await temporalCli();
  const server: ChildProcess = spawn(
    cli,
    [
      "server",
      "start-dev",
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--ui-port",
      String(uiPort),
      "--db-filename",
      dbFile,
      "--log-level",
      "error",
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
  const address = `127.0.0.1:${port}`;
  await waitUntilAnswering(address, exited);
  return {
    address,
    uiUrl: `http://127.0.0.1:${uiPort}`,
    pid: server.pid!,
    async stop() {
      server.kill("SIGTERM");
      await exited;
    },
  };
}

async function waitUntilAnswering(address: string, exited: Promise<void>): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (let attempt = 0; attempt < 120; attempt++) {
    if (gone) throw new Error("The Temporal dev server stopped while starting; its messages are above.");
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      await connection.close();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  throw new Error(`The Temporal dev server at ${address} did not answer within a minute.`);
}

/** `preferred` when it is free, else a port the system picks. */
function freePort(preferred: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", () => (preferred === 0 ? reject(new Error("No free port.")) : resolve(freePort(0))));
    probe.listen(preferred, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
