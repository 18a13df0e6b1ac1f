// A worker for a TLS server: runWorker connects through a profile of the Temporal config file (address,
// namespace, the server's CA and name), registers the search attributes over that connection, and serves a
// turn. The TLS endpoint is a TLS-terminating proxy (node:tls, ALPN h2) in front of the run's dev server,
// with a certificate signed by a CA of the test's own.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { connect, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer, type Server } from "node:tls";
import { Client } from "@temporalio/client";
import { msToTs } from "@temporalio/common/lib/time.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTurn } from "../../src/temporal/start-turn.js";
import { runWorker } from "../../worker.js";
import { TOWN_MODEL, TOWN_QUESTIONS, townCatalog } from "../fixtures/temporal/town.js";
import { connectClient, temporalAddress, uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import { openStore, sharedBundle, type TestStore } from "./harness.js";

const folder = mkdtempSync(join(tmpdir(), "soev-tls-"));
const file = (name: string) => join(folder, name);

/** A CA, and a certificate for localhost that it signs (a self-signed leaf is refused by rustls). */
function makeCertificates(): void {
  const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: "pipe" });
  openssl(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "1",
    "-subj",
    "/CN=soev test CA",
    "-keyout",
    file("ca.key"),
    "-out",
    file("ca.pem"),
  );
  openssl(
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-subj",
    "/CN=localhost",
    "-keyout",
    file("server.key"),
    "-out",
    file("server.csr"),
  );
  writeFileSync(file("server.ext"), "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n");
  openssl(
    "x509",
    "-req",
    "-in",
    file("server.csr"),
    "-CA",
    file("ca.pem"),
    "-CAkey",
    file("ca.key"),
    "-CAcreateserial",
    "-days",
    "1",
    "-extfile",
    file("server.ext"),
    "-out",
    file("server.pem"),
  );
}

let proxy: Server;
let connections = 0;
let temporal: TestClient;
let store: TestStore;
beforeAll(async () => {
  makeCertificates();
  const [host, port] = temporalAddress().split(":");
  proxy = createServer(
    { key: readFileSync(file("server.key")), cert: readFileSync(file("server.pem")), ALPNProtocols: ["h2"] },
    (socket) => {
      connections++;
      const upstream = connect(Number(port), host === "localhost" ? "127.0.0.1" : host!);
      socket.pipe(upstream).pipe(socket);
      socket.on("error", () => upstream.destroy());
      upstream.on("error", () => socket.destroy());
    },
  );
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  temporal = await connectClient();
  store = await openStore("sqlite");
});
afterAll(async () => {
  await store?.close();
  await temporal?.close();
  await new Promise((resolve) => proxy?.close(resolve));
});

it("a worker connecting through an envconfig profile with TLS registers the search attributes and serves a turn", async () => {
  // A namespace of the test's own, so that the worker's registration adds the attributes rather than finding them.
  const namespace = `soev-tls-${randomBytes(4).toString("hex")}`;
  await temporal.connection.workflowService.registerNamespace({
    namespace,
    workflowExecutionRetentionPeriod: msToTs("1 day"),
  });
  const { port } = proxy.address() as AddressInfo;
  writeFileSync(
    file("temporal.toml"),
    [
      "[profile.secure]",
      `address = "localhost:${port}"`,
      `namespace = "${namespace}"`,
      "[profile.secure.tls]",
      `server_ca_cert_path = "${file("ca.pem")}"`,
      `server_name = "localhost"`,
    ].join("\n"),
  );
  const saved = { ...process.env };
  process.env.TEMPORAL_CONFIG_FILE = file("temporal.toml");
  for (const name of ["TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE", "TEMPORAL_TLS", "TEMPORAL_PROFILE"])
    delete process.env[name];
  const stopping = new AbortController();
  const taskQueue = uniqueTaskQueue("tls");
  const { catalog } = townCatalog(store.store);
  let worker: Promise<void> | null = null;
  try {
    // The namespace takes a moment to be known to every service of the dev server.
    for (let attempt = 0; ; attempt++) {
      try {
        await temporal.connection.workflowService.describeNamespace({ namespace });
        break;
      } catch (error) {
        if (attempt > 100) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    worker = runWorker({
      catalog,
      profile: "secure",
      taskQueue,
      workflowBundle: await sharedBundle(),
      signal: stopping.signal,
    });
    let registered: string[] = [];
    for (let attempt = 0; attempt < 300 && registered.length < 3; attempt++) {
      const listed = await temporal.connection.operatorService.listSearchAttributes({ namespace });
      registered = Object.keys(listed.customAttributes ?? {}).filter((name) => name.startsWith("Soev"));
      if (registered.length < 3) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(registered.sort()).toEqual(["SoevAgent", "SoevThreadId", "SoevThreadTokens"]);
    const turn = await startTurn(new Client({ connection: temporal.connection, namespace }), {
      agent: "assistant",
      input: { payload: TOWN_QUESTIONS[0]!, model: TOWN_MODEL },
      taskQueue,
    });
    expect((await turn.result()).sources).toEqual(["waste-collection#2"]);
    expect(connections).toBeGreaterThan(0);
  } finally {
    stopping.abort();
    await worker;
    process.env = saved;
  }
}, 120_000);
