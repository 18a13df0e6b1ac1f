/**
 * docker-compose.yml keeps the promises of the README's "Production with docker-compose": no container
 * engine runs here, so the file is parsed and its services, ports, dependencies and environment checked.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { DEFAULT_TASK_QUEUE } from "../../src/temporal/contract.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const read = (file: string) => readFileSync(`${root}${file}`, "utf8");

interface Service {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  environment?: Record<string, string | number> | string[];
  ports?: (string | number)[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: { test?: string[] | string };
  volumes?: string[];
}

const compose = parse(read("docker-compose.yml")) as {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
};
const services = compose.services;

function service(name: string): Service {
  const found = services[name];
  if (!found) throw new Error(`docker-compose.yml has no service "${name}".`);
  return found;
}

/** A service's environment as a map, whichever of the two forms the file uses. */
function environment(name: string): Record<string, string> {
  const value = service(name).environment ?? {};
  if (Array.isArray(value)) {
    return Object.fromEntries(
      value.map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
    );
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, String(item)]));
}

/** host port -> container port, of the ports a service publishes. */
function published(name: string): Map<string, string> {
  const ports = (service(name).ports ?? []).map(String).map((port) => port.split(":"));
  return new Map(ports.map((parts) => [parts.at(-2) ?? "", parts.at(-1) ?? ""]));
}

/** The services a service waits for, with the condition it waits on. */
function dependencies(name: string): Record<string, string> {
  const value = service(name).depends_on ?? [];
  if (Array.isArray(value)) return Object.fromEntries(value.map((dependency) => [dependency, "service_started"]));
  return Object.fromEntries(
    Object.entries(value).map(([dependency, spec]) => [dependency, spec.condition ?? "service_started"]),
  );
}

function readmeSection(title: string): string {
  const readme = read("README.md");
  const start = readme.indexOf(`## ${title}`);
  if (start < 0) throw new Error(`README.md has no section "${title}".`);
  const end = readme.indexOf("\n## ", start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

describe("docker-compose.yml", () => {
  it("has the services the README lists", () => {
    const section = readmeSection("Production with docker-compose");
    const listed = [...section.matchAll(/^\| `([a-z-]+)`/gm)].map((match) => match[1]);
    expect(listed.sort()).toEqual(Object.keys(services).sort());
    expect(Object.keys(services).sort()).toEqual([
      "temporal",
      "temporal-postgresql",
      "temporal-ui",
      "trace-postgresql",
      "worker",
    ]);
  });

  it("publishes every localhost port the README promises, on the service that serves it", () => {
    const section = readmeSection("Production with docker-compose");
    const promised = new Set([...section.matchAll(/localhost:(\d+)/g)].map((match) => match[1]));
    expect([...promised].sort()).toEqual(["5433", "7233", "8080"]);
    expect(published("temporal").get("7233")).toBe("7233");
    expect(published("temporal-ui").get("8080")).toBe("8080");
    expect(published("trace-postgresql").get("5433")).toBe("5432");
    expect(published("worker").size).toBe(0);
  });

  it("runs a Temporal server that persists to its own PostgreSQL", () => {
    const temporal = environment("temporal");
    const database = environment("temporal-postgresql");
    expect(service("temporal").image).toMatch(/^temporalio\/(auto-setup|server):\d/);
    expect(temporal.DB).toBe("postgres12");
    expect(temporal.POSTGRES_SEEDS).toBe("temporal-postgresql");
    expect(service("temporal-postgresql").image).toMatch(/^postgres:\d/);
    expect(temporal.POSTGRES_USER).toBe(database.POSTGRES_USER);
    expect(temporal.POSTGRES_PWD).toBe(database.POSTGRES_PASSWORD);
    expect(dependencies("temporal")).toEqual({ "temporal-postgresql": "service_healthy" });
  });

  it("points the Temporal UI at the server", () => {
    expect(service("temporal-ui").image).toMatch(/^temporalio\/ui:\d/);
    expect(environment("temporal-ui").TEMPORAL_ADDRESS).toBe("temporal:7233");
    expect(dependencies("temporal-ui")).toHaveProperty("temporal");
  });

  it("builds the worker from this repository and configures it as the README says", () => {
    const build = service("worker").build;
    const context = typeof build === "string" ? build : build?.context;
    expect(context).toBe(".");
    const dockerfile = read("Dockerfile");
    expect(dockerfile).toMatch(/^FROM node:20/m);
    expect(dockerfile).toMatch(/^RUN npm ci/m);
    expect(dockerfile).toMatch(/^CMD .*worker\.ts/m);
    expect(existsSync(`${root}worker.ts`)).toBe(true);

    const worker = environment("worker");
    const section = readmeSection("Production with docker-compose");
    for (const name of ["TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE", "TEMPORAL_TASK_QUEUE", "DATABASE_URL"]) {
      expect(section).toContain(`${name}=${worker[name]}`);
    }
    expect(worker.TEMPORAL_ADDRESS).toBe("temporal:7233");
    expect(worker.TEMPORAL_NAMESPACE).toBe(environment("temporal").DEFAULT_NAMESPACE);
    expect(worker.TEMPORAL_TASK_QUEUE).toBe(DEFAULT_TASK_QUEUE);
  });

  it("gives the worker the trace store's PostgreSQL, with that server's database and credentials", () => {
    const url = new URL(environment("worker").DATABASE_URL ?? "");
    const store = environment("trace-postgresql");
    expect(url.protocol).toBe("postgres:");
    expect(url.hostname).toBe("trace-postgresql");
    expect(url.port).toBe("5432");
    expect(url.username).toBe(store.POSTGRES_USER);
    expect(url.password).toBe(store.POSTGRES_PASSWORD);
    expect(url.pathname).toBe(`/${store.POSTGRES_DB}`);
    expect(service("trace-postgresql").image).toMatch(/^postgres:\d/);
  });

  it("starts the worker after Temporal and the trace store are healthy", () => {
    expect(dependencies("worker")).toEqual({ temporal: "service_healthy", "trace-postgresql": "service_healthy" });
  });

  it("waits only on services that exist, and on health only where a healthcheck is defined", () => {
    for (const name of Object.keys(services)) {
      for (const [dependency, condition] of Object.entries(dependencies(name))) {
        expect(services, `${name} depends on ${dependency}`).toHaveProperty([dependency]);
        if (condition === "service_healthy")
          expect(service(dependency).healthcheck?.test, `${dependency} healthcheck`).toBeDefined();
      }
    }
  });

  it("keeps both databases on named volumes", () => {
    expect(Object.keys(compose.volumes ?? {}).sort()).toEqual(["temporal-data", "trace-data"]);
    expect(service("temporal-postgresql").volumes).toContain("temporal-data:/var/lib/postgresql/data");
    expect(service("trace-postgresql").volumes).toContain("trace-data:/var/lib/postgresql/data");
  });
});
