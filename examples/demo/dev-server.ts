/** A local Temporal dev server for the demo: the CLI the project provisions, its data in a file, its UI on. */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { Connection } from "@temporalio/client";

/** A running dev server: where it listens, and how to stop it. */
export interface DevServer {
  address: string;
  uiUrl: string;
  stop(): Promise<void>;
}

/** The Temporal CLI: $TEMPORAL_CLI_PATH, `temporal` on PATH, or the one scripts/provision-temporal.sh finds or builds. */
export async function temporalCli(): Promise<string> {
  if (process.env.TEMPORAL_CLI_PATH) return process.env.TEMPORAL_CLI_PATH;
  const { stdout } = await promisify(execFile)(
    "bash",
    [join(import.meta.dirname, "../../scripts/provision-temporal.sh")],
    { maxBuffer: 1 << 20 },
  );
  return stdout.trim().split("\n").at(-1)!;
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
