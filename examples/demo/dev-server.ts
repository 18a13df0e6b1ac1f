/** A local Temporal dev server for the demo: the CLI examples/temporal-cli.ts finds, its data in a file, its UI on. */
import { createServer } from "node:net";
import { TestWorkflowEnvironment } from "@temporalio/testing";
import { startWithTemporalCli } from "../temporal-cli.js";

export { TemporalCliMissingError } from "../temporal-cli.js";

/** A running dev server: where it listens and how to stop it. */
export interface DevServer {
  address: string;
  uiUrl: string;
  stop(): Promise<void>;
}

/** Start a dev server (on 7233 and 8233 when free) persisting to `dbFile`; resolves once it answers. */
export async function startDevServer(dbFile: string): Promise<DevServer> {
  const [port, uiPort] = [await freePort(7233), await freePort(8233)];
  const environment = await startWithTemporalCli({
    start: (executable) =>
      TestWorkflowEnvironment.createLocal({
        server: {
          executable,
          ip: "127.0.0.1",
          port,
          ui: true,
          uiPort,
          dbFilename: dbFile,
          log: { format: "pretty", level: "error" },
        },
      }),
  });
  return {
    address: environment.address,
    uiUrl: `http://127.0.0.1:${uiPort}`,
    stop: () => environment.teardown(),
  };
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
