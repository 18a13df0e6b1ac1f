/**
 * docker-compose.yml, the Dockerfile and .dockerignore keep the promises of the README's "Production with
 * docker-compose": no container engine runs here, so the files are parsed and their services, ports,
 * dependencies, passwords, stages and user checked.
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
  command?: string[] | string;
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

/** The parts of the worker's DATABASE_URL; its password is an interpolation, which URL does not parse. */
function workerDatabase(): {
  protocol: string;
  username: string;
  password: string;
  hostname: string;
  port: string;
  pathname: string;
} {
  const url = environment("worker").DATABASE_URL ?? "";
  const parts = /^(\w+:)\/\/([^:@]+):(.*)@([^:@/]+):(\d+)(\/\w+)$/.exec(url);
  if (!parts) throw new Error(`The worker's DATABASE_URL is not user:password@host:port/database: ${url}`);
  const [, protocol, username, password, hostname, port, pathname] = parts as unknown as string[];
  return {
    protocol: protocol!,
    username: username!,
    password: password!,
    hostname: hostname!,
    port: port!,
    pathname: pathname!,
  };
}

/** The variable an interpolation `${NAME:?message}` reads. */
function variableOf(value: string | undefined): string | undefined {
  return /^\$\{([A-Z_]+)/.exec(value ?? "")?.[1];
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
      "app",
      "temporal",
      "temporal-namespace",
      "temporal-postgresql",
      "temporal-schema",
      "temporal-ui",
      "trace-postgresql",
      "worker",
    ]);
  });

  it("publishes every localhost port the README promises, on the service that serves it", () => {
    const section = readmeSection("Production with docker-compose");
    const promised = new Set([...section.matchAll(/localhost:(\d+)/g)].map((match) => match[1]));
    expect([...promised].sort()).toEqual(["3000", "5433", "7233", "8080"]);
    expect(published("app").get("3000")).toBe("3000");
    expect(published("temporal").get("7233")).toBe("7233");
    expect(published("temporal-ui").get("8080")).toBe("8080");
    expect(published("trace-postgresql").get("5433")).toBe("5432");
    expect(published("worker").size).toBe(0);
  });

  it("binds every published port to 127.0.0.1 only, and says so", () => {
    for (const [name, spec] of Object.entries(services)) {
      for (const port of (spec.ports ?? []).map(String))
        expect(port, `${name} publishes ${port}`).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
    }
    expect(readmeSection("Production with docker-compose")).toMatch(/127\.0\.0\.1/);
  });

  it("takes every password from the environment with no working default, and says TLS and auth come first", () => {
    const passwords = [
      environment("temporal-postgresql").POSTGRES_PASSWORD,
      environment("temporal-schema").SQL_PASSWORD,
      environment("temporal").POSTGRES_PWD,
      environment("trace-postgresql").POSTGRES_PASSWORD,
      workerDatabase().password,
    ];
    for (const password of passwords) expect(password).toMatch(/^\$\{[A-Z_]+:\?[^}]*\}$/);
    const section = readmeSection("Production with docker-compose");
    for (const name of ["TEMPORAL_DB_PASSWORD", "TRACE_DB_PASSWORD"]) expect(section).toContain(name);
    expect(section).toMatch(/TLS/);
    expect(section).toMatch(/authenticat/i);
    expect(read("docker-compose.yml")).toMatch(/no TLS and no authentication/);
  });

  it("runs the Temporal server image on its own PostgreSQL, whose schemas admin-tools sets up first", () => {
    const temporal = environment("temporal");
    const database = environment("temporal-postgresql");
    const schema = environment("temporal-schema");
    expect(service("temporal").image).toMatch(/^temporalio\/server:\d/);
    expect(read("docker-compose.yml")).not.toMatch(/auto-setup:/);
    expect(temporal.DB).toBe("postgres12");
    expect(temporal.POSTGRES_SEEDS).toBe("temporal-postgresql");
    expect(service("temporal-postgresql").image).toMatch(/^postgres:\d/);
    expect(temporal.POSTGRES_USER).toBe(database.POSTGRES_USER);
    expect(temporal.POSTGRES_PWD).toBe(database.POSTGRES_PASSWORD);

    expect(service("temporal-schema").image).toMatch(/^temporalio\/admin-tools:\d/);
    expect(schema).toMatchObject({ SQL_PLUGIN: "postgres12", SQL_HOST: "temporal-postgresql", SQL_USER: "temporal" });
    expect(schema.SQL_PASSWORD).toBe(database.POSTGRES_PASSWORD);
    const script = String(service("temporal-schema").command);
    for (const database of ["temporal", "temporal_visibility"]) expect(script).toContain(database);
    expect(script).toMatch(/setup-schema/);
    expect(script).toMatch(/update-schema -d "\/etc\/temporal\/schema\/postgresql\/v12\//);
    expect(dependencies("temporal-schema")).toEqual({ "temporal-postgresql": "service_healthy" });
    expect(dependencies("temporal")).toEqual({ "temporal-schema": "service_completed_successfully" });

    expect(service("temporal-namespace").image).toMatch(/^temporalio\/admin-tools:\d/);
    expect(environment("temporal-namespace").TEMPORAL_ADDRESS).toBe("temporal:7233");
    expect(String(service("temporal-namespace").command)).toMatch(/namespace create --namespace default/);
  });

  it("points the Temporal UI at the server", () => {
    expect(service("temporal-ui").image).toMatch(/^temporalio\/ui:\d/);
    expect(environment("temporal-ui").TEMPORAL_ADDRESS).toBe("temporal:7233");
    expect(dependencies("temporal-ui")).toEqual({ "temporal-namespace": "service_completed_successfully" });
  });

  it("builds the worker from this repository and configures it as the README says", () => {
    const build = service("worker").build;
    const context = typeof build === "string" ? build : build?.context;
    expect(context).toBe(".");
    expect(existsSync(`${root}worker.ts`)).toBe(true);

    const worker = environment("worker");
    const section = readmeSection("Production with docker-compose");
    for (const name of ["TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE", "TEMPORAL_TASK_QUEUE"]) {
      expect(section).toContain(`${name}=${worker[name]}`);
    }
    expect(worker.TEMPORAL_ADDRESS).toBe("temporal:7233");
    expect(worker.TEMPORAL_NAMESPACE).toBe("default");
    expect(worker.TEMPORAL_TASK_QUEUE).toBe(DEFAULT_TASK_QUEUE);
  });

  it("gives the worker the trace store's PostgreSQL, with that server's database and credentials", () => {
    const url = workerDatabase();
    const store = environment("trace-postgresql");
    expect(url.protocol).toBe("postgres:");
    expect(url.hostname).toBe("trace-postgresql");
    expect(url.port).toBe("5432");
    expect(url.username).toBe(store.POSTGRES_USER);
    expect(variableOf(url.password)).toBe(variableOf(store.POSTGRES_PASSWORD));
    expect(url.pathname).toBe(`/${store.POSTGRES_DB}`);
    expect(service("trace-postgresql").image).toMatch(/^postgres:\d/);
  });

  it("starts the worker once Temporal has its namespace and the trace store is healthy", () => {
    expect(dependencies("worker")).toEqual({
      "temporal-namespace": "service_completed_successfully",
      "trace-postgresql": "service_healthy",
    });
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

  it("runs the app from the worker's image, with its own keys, ready when /readyz answers", () => {
    expect(service("app").build).toBe(service("worker").build);
    expect(service("app").command).toEqual(["node", "dist/app-server.js"]);
    expect(existsSync(`${root}app-server.ts`)).toBe(true);
    const app = environment("app");
    expect(app.DATABASE_URL).toBe(environment("worker").DATABASE_URL);
    expect(app.SOEV_API_KEYS).toMatch(/^\$\{SOEV_API_KEYS:\?/);
    // One secret for every replica, or a browser token made by one is refused by the others.
    expect(app.SOEV_TOKEN_SECRET).toMatch(/^\$\{SOEV_TOKEN_SECRET:\?/);
    expect(String(service("app").healthcheck?.test)).toContain("/readyz");
    expect(dependencies("app")).toEqual(dependencies("worker"));
  });

  it("keeps both databases on named volumes", () => {
    expect(Object.keys(compose.volumes ?? {}).sort()).toEqual(["temporal-data", "trace-data"]);
    expect(service("temporal-postgresql").volumes).toContain("temporal-data:/var/lib/postgresql/data");
    expect(service("trace-postgresql").volumes).toContain("trace-data:/var/lib/postgresql/data");
  });
});

/** The Dockerfile's stages: each FROM line and the instructions under it. */
function stages(): { from: string; name: string | null; lines: string[] }[] {
  const found: { from: string; name: string | null; lines: string[] }[] = [];
  for (const line of read("Dockerfile").split("\n")) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) found.push({ from: from[1]!, name: from[2] ?? null, lines: [] });
    else if (/^[A-Z]+\s/.test(line)) found.at(-1)?.lines.push(line);
  }
  return found;
}

describe("Dockerfile", () => {
  it("builds in one stage and runs in another, on the Node the package needs", () => {
    const all = stages();
    expect(all.length).toBeGreaterThanOrEqual(2);
    const engines = (JSON.parse(read("package.json")) as { engines: { node: string } }).engines.node;
    expect(engines).toBe(">=22.12.0");
    for (const stage of all) expect(stage.from).toMatch(/^node:24-/);
    const build = all.find((stage) => stage.lines.some((line) => /^RUN npm run build/.test(line)));
    expect(build?.lines).toContain("RUN npm ci --no-audit --no-fund");
  });

  it("runs the built JavaScript as a non-root user with production dependencies only", () => {
    const all = stages();
    const runtime = all.at(-1)!;
    const user = runtime.lines.filter((line) => line.startsWith("USER ")).at(-1);
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^USER\s+(root|0)(:|\s*$)/);
    expect(runtime.lines.at(-1)).toBe('CMD ["node", "dist/worker.js"]');
    expect(runtime.lines.join("\n")).not.toMatch(/tsx|COPY \. \./);
    const copies = runtime.lines.filter((line) => line.startsWith("COPY --from="));
    const modules = copies.find((line) => / \/app\/node_modules /.test(line));
    const source = all.find((stage) => stage.name === /--from=(\S+)/.exec(modules ?? "")?.[1]);
    expect(source?.lines.some((line) => /^RUN npm ci --omit=dev/.test(line))).toBe(true);
    expect(copies.some((line) => /\/app\/dist /.test(line))).toBe(true);
  });
});

describe(".dockerignore", () => {
  const patterns = read(".dockerignore")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"));
  /** Whether a pattern of the file matches `path`: `*` within a name, as Docker reads it at the top. */
  const ignored = (path: string) =>
    patterns.some((pattern) =>
      new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}(/.*)?$`).test(path),
    );

  it("keeps secrets, local state and build output out of the image", () => {
    for (const path of [".env", ".env.production", ".npmrc", "server.key", "tls.pem", "id_rsa", ".git/config"])
      expect(ignored(path), path).toBe(true);
    for (const path of ["node_modules/zod/index.js", "dist/worker.js", ".data/soev-agents.sqlite"])
      expect(ignored(path), path).toBe(true);
    for (const path of ["package.json", "package-lock.json", "worker.ts", "src/index.ts"])
      expect(ignored(path), path).toBe(false);
  });
});
