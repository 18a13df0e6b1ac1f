// The dev server's CLI lookup on a machine with no CLI and no Go: the SDK's download is the last way.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EphemeralServerExecutable } from "@temporalio/testing";
import { describe, expect, it } from "vitest";
import { GET_THE_CLI, startWithTemporalCli, TemporalCliMissingError, type CliAttempt } from "./temporal-cli.js";

/** A machine: an empty PATH folder and HOME, no Go; what the lookup tried, started and said. */
function bareMachine() {
  const root = mkdtempSync(join(tmpdir(), "soev-cli-"));
  mkdirSync(join(root, "bin"));
  const seen = { attempts: [] as CliAttempt[], started: [] as EphemeralServerExecutable[], said: [] as string[] };
  const built: string[] = [];
  const options = {
    env: { PATH: join(root, "bin"), HOME: root },
    goPaths: [],
    build: async () => {
      built.push("build");
      return join(root, "built", "temporal");
    },
    downloadSize: async () => 52_428_800,
    say: (line: string) => seen.said.push(line),
    attempt: (which: CliAttempt) => seen.attempts.push(which),
  };
  return { root, seen, built, options };
}

function executable(path: string): string {
  writeFileSync(path, "#!/bin/sh\n");
  chmodSync(path, 0o755);
  return path;
}

describe("startWithTemporalCli", () => {
  it("with no CLI and no Go lets the SDK download the dev server, saying so with its size", async () => {
    const { seen, built, options } = bareMachine();
    const server = await startWithTemporalCli({
      ...options,
      start: async (executable) => {
        seen.started.push(executable);
        return "server";
      },
    });
    expect(server).toBe("server");
    expect(seen.attempts).toEqual(["TEMPORAL_CLI_PATH", "PATH", "cache", "go", "download"]);
    expect(built).toEqual([]);
    expect(seen.started).toEqual([{ type: "cached-download" }]);
    expect(seen.said).toHaveLength(1);
    expect(seen.said[0]).toMatch(
      /^No Temporal CLI found and no Go to build one: the Temporal SDK downloads the dev server \(52 MB,/,
    );
  });

  it("when the download fails too, rejects with one line that lists the ways to get a CLI", async () => {
    const { seen, options } = bareMachine();
    const failing = startWithTemporalCli({
      ...options,
      downloadSize: async () => null,
      start: async (executable) => {
        seen.started.push(executable);
        throw new Error("error sending request for url (https://temporal.download/cli/default)\nmore detail");
      },
    });
    await expect(failing).rejects.toThrow(TemporalCliMissingError);
    const message = await failing.catch((error: Error) => error.message);
    expect(message).toBe(
      `The download failed (error sending request for url (https://temporal.download/cli/default)). ${GET_THE_CLI}`,
    );
    expect(message).not.toContain("\n");
    expect(seen.said[0]).toContain("(size unknown,");
    expect(seen.attempts.at(-1)).toBe("download");
  });

  it("takes the CLI from PATH, then the provision script's cache, then a Go build, before any download", async () => {
    const onPath = bareMachine();
    const path = executable(join(onPath.root, "bin", "temporal"));
    const started: EphemeralServerExecutable[] = [];
    const start = async (executable: EphemeralServerExecutable) => void started.push(executable);
    await startWithTemporalCli({ ...onPath.options, start });
    expect(onPath.seen.attempts).toEqual(["TEMPORAL_CLI_PATH", "PATH"]);

    const cachedMachine = bareMachine();
    mkdirSync(join(cachedMachine.root, ".cache", "soev-temporal", "bin"), { recursive: true });
    const cached = executable(join(cachedMachine.root, ".cache", "soev-temporal", "bin", "temporal"));
    await startWithTemporalCli({ ...cachedMachine.options, start });
    expect(cachedMachine.seen.attempts).toEqual(["TEMPORAL_CLI_PATH", "PATH", "cache"]);

    const withGo = bareMachine();
    const go = executable(join(withGo.root, "go"));
    await startWithTemporalCli({ ...withGo.options, goPaths: [go], start });
    expect(withGo.seen.attempts).toEqual(["TEMPORAL_CLI_PATH", "PATH", "cache", "go"]);
    expect(withGo.built).toEqual(["build"]);

    expect(started).toEqual([
      { type: "existing-path", path },
      { type: "existing-path", path: cached },
      { type: "existing-path", path: join(withGo.root, "built", "temporal") },
    ]);
    expect([onPath, cachedMachine, withGo].flatMap((machine) => machine.seen.said)).toEqual([]);
  });

  it("refuses a TEMPORAL_CLI_PATH that is not an executable, naming it", async () => {
    const { root, options } = bareMachine();
    const given = join(root, "nothing-here");
    const failing = startWithTemporalCli({
      ...options,
      env: { ...options.env, TEMPORAL_CLI_PATH: given },
      start: async () => {},
    });
    await expect(failing).rejects.toThrow(`TEMPORAL_CLI_PATH=${given} is not an executable file.`);
  });
});
