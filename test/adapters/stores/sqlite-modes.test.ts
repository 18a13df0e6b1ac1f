// The trace holds conversations: a SQLite store's folder is created 0700 and its files 0600, whatever the
// umask lets others read (security review, finding 7).
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteTraceStore } from "../../../src/adapters/stores/sqlite.js";
import { Input } from "../../../src/domain/events.js";
import { encode } from "../../../src/domain/registry.js";
import { storeFromEnvironment } from "../../../worker.js";

const mode = (path: string) => statSync(path).mode & 0o777;

describe("a SQLite store's files", () => {
  it("are created 0600, with the -wal file, in a new folder created 0700", async () => {
    const folder = join(mkdtempSync(join(tmpdir(), "soev-modes-")), "data", "traces");
    const path = join(folder, "trace.sqlite");
    const store = new SqliteTraceStore(path);
    try {
      await store.append("t1", [encode(Input({ payload: "hi" }))]);
      expect(mode(folder).toString(8)).toBe("700");
      expect(mode(path).toString(8)).toBe("600");
      expect(mode(`${path}-wal`).toString(8)).toBe("600");
    } finally {
      await store.close();
    }
  });

  it("of the worker's data folder are the user's alone", async () => {
    const folder = join(mkdtempSync(join(tmpdir(), "soev-modes-")), "data");
    const store = await storeFromEnvironment({ SOEV_DATA_DIR: folder });
    await store.close();
    expect(mode(folder).toString(8)).toBe("700");
    expect(mode(join(folder, "soev-agents.sqlite")).toString(8)).toBe("600");
  });
});
