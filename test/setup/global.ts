/**
 * The vitest global setup: ONE Temporal dev server for the whole run (the machines have 2 cores), with
 * the soev-agents search attributes registered, and a check that PostgreSQL answers. Tests read the
 * server's address and namespace with `inject` (test/support/temporal.ts). A missing service fails the
 * run with a message naming it; nothing is skipped and nothing is downloaded.
 */
import { execFileSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { fileURLToPath } from "node:url";
import { TestWorkflowEnvironment } from "@temporalio/testing";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { SOEV_SEARCH_ATTRIBUTES, registerSearchAttributes } from "../../src/temporal/search-attributes.js";
import { postgresUrl, redactedUrl } from "../support/postgres.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** host:port of the run's Temporal dev server. */
    temporalAddress: string;
    /** The namespace the dev server created, with the search attributes registered. */
    temporalNamespace: string;
    /** The PostgreSQL URL that answered at setup: $DATABASE_URL, else the local default. */
    databaseUrl: string;
  }
}

const NAMESPACE = "default";
const PROVISION_SCRIPT = fileURLToPath(new URL("../../scripts/provision-temporal.sh", import.meta.url));

/** Start the services of the run; the returned function stops them. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const databaseUrl = await checkPostgres();
  const environment = await startTemporal(temporalCliPath());
  try {
    // The dev server registers them at start already; registering again through the operator service
    // checks the function that production start-up code calls (idempotent: it adds nothing here).
    await registerSearchAttributes(environment.connection, NAMESPACE);
  } catch (error) {
    await environment.teardown();
    throw error;
  }
  project.provide("temporalAddress", environment.address);
  project.provide("temporalNamespace", NAMESPACE);
  project.provide("databaseUrl", databaseUrl);
  return async () => {
    await environment.teardown();
  };
}

/** The CLI binary: $TEMPORAL_CLI_PATH, else what scripts/provision-temporal.sh finds or builds. */
export function temporalCliPath(): string {
  const fromEnvironment = process.env.TEMPORAL_CLI_PATH;
  if (fromEnvironment) {
    try {
      accessSync(fromEnvironment, constants.X_OK);
    } catch {
      throw new Error(
        `Temporal CLI: TEMPORAL_CLI_PATH=${fromEnvironment} is not an executable file. Fix it, or unset it to let scripts/provision-temporal.sh find one.`,
      );
    }
    return fromEnvironment;
  }
  try {
    return execFileSync("bash", [PROVISION_SCRIPT], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
  } catch (error) {
    throw new Error(
      "Temporal CLI not found: the tests need a Temporal dev server. Run `bash scripts/provision-temporal.sh` " +
        "(it builds the CLI with Go), or set TEMPORAL_CLI_PATH to a `temporal` binary.",
      { cause: error },
    );
  }
}

/**
 * A dev server from the CLI at `path`, in the namespace the tests use, with the soev-agents search attributes;
 * `dynamicConfig` sets server settings (`name=value`, as `--dynamic-config-value` takes them).
 */
export async function startTemporal(path: string, dynamicConfig: string[] = []): Promise<TestWorkflowEnvironment> {
  try {
    return await TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: "existing-path", path },
        namespace: NAMESPACE,
        searchAttributes: [...SOEV_SEARCH_ATTRIBUTES],
        log: { format: "pretty", level: "warn" },
        extraArgs: dynamicConfig.flatMap((setting) => ["--dynamic-config-value", setting]),
      },
    });
  } catch (error) {
    throw new Error(`Temporal CLI at ${path} could not start a dev server: ${messageOf(error)}`, { cause: error });
  }
}

/** Check that PostgreSQL answers one query; the URL is returned for the tests. */
async function checkPostgres(): Promise<string> {
  const url = postgresUrl();
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
  } catch (error) {
    throw new Error(
      `PostgreSQL does not answer at ${redactedUrl(url)}: ${messageOf(error)}. Start it with ` +
        "`bash scripts/provision-postgres.sh`, or set DATABASE_URL to a server the tests may create schemas on.",
      { cause: error },
    );
  } finally {
    await client.end().catch(() => {});
  }
  return url;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
