/** A local Temporal dev server for the demo: the CLI examples/temporal-cli.ts finds, its data in a file, its UI on. */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { Connection } from "@temporalio/client";
import { TestWorkflowEnvironment } from "@temporalio/testing";
import { startWithTemporalCli } from "../temporal-cli.js";

export { TemporalCliMissingError } from "../temporal-cli.js";

/** A running dev server: where it listens, its process when the demo started it itself, and how to stop it. */
export interface DevServer {
  address: string;
  uiUrl: string;
  /** The server's process id; null for the SDK's downloaded server, whose process the SDK keeps. */
  pid: number | null;
  stop(): Promise<void>;
}

/** Start a dev server (on 7233 and 8233 when free) persisting to `dbFile`; resolves once it answers. */
export async function startDevServer(dbFile: string): Promise<DevServer> {
  const [port, uiPort] = [await freePort(7233), await freePort(8233)];
  return startWithTemporalCli<DevServer>({
    start: (executable) =>
      executable.type === "existing-path"
        ? spawnServer(executable.path, dbFile, port, uiPort)
        : downloadedServer(dbFile, port, uiPort),
  });
}

/** `temporal server start-dev` as a child of the demo, so the demo knows its pid and stops it on a signal. */
async function spawnServer(cli: string, dbFile: string, port: number, uiPort: number): Promise<DevServer> {
  const args = ["server", "start-dev", "--ip", "127.0.0.1", "--port", String(port), "--ui-port", String(uiPort)];
  args.push("--db-filename", dbFile, "--log-level", "error");
  const server: ChildProcess = spawn(cli, args, { stdio: ["ignore", "ignore", "inherit"] });
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

/** The dev server the Temporal SDK downloads and runs (the same options, through TestWorkflowEnvironment). */
async function downloadedServer(dbFile: string, port: number, uiPort: number): Promise<DevServer> {
  const environment = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: "cached-download" },
      ip: "127.0.0.1",
      port,
      ui: true,
      uiPort,
      dbFilename: dbFile,
      log: { format: "pretty", level: "error" },
    },
  });
  return {
    address: environment.address,
    uiUrl: `http://127.0.0.1:${uiPort}`,
    pid: null,
    stop: () => environment.teardown(),
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
