// The commit message convention: the checker, the commit-msg hook in a scratch repository, and its installer.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { commitMessageProblems } from "../../scripts/commit-message.js";
import { installHooks } from "../../scripts/install-hooks.js";

const HOOKS = resolve(import.meta.dirname, "../../scripts/git-hooks");
const subject = (length: number) => "Add a thing".padEnd(length, "x");

describe("commitMessageProblems", () => {
  it("takes a subject of up to 72 characters, alone or with a body after a blank line", () => {
    expect(commitMessageProblems(`${subject(72)}\n`)).toEqual([]);
    expect(commitMessageProblems("Break the import cycle\n\nWhat and why.\nMore.\n")).toEqual([]);
  });

  it("names a long subject, a trailing period and a body that follows the subject without a blank line", () => {
    expect(commitMessageProblems(`${subject(73)}\n`)).toEqual([
      "The subject is 73 characters; keep it to 72 and put the rest in the body.",
    ]);
    expect(commitMessageProblems("Fix the thing.\n")).toEqual(["The subject ends with a period; drop it."]);
    expect(commitMessageProblems("Fix the thing\nbecause it broke\n")).toEqual([
      "The subject runs on into a second line; leave a blank line between the subject and the body.",
    ]);
    expect(commitMessageProblems("# only a comment\n\n")).toEqual(["The message is empty: write a subject line."]);
  });

  it("reads the message as git keeps it: comments and what follows the scissors are left out", () => {
    const verbose = `# Please enter the commit message\nFix the thing\n\nBody.\n# ------------------------ >8 ------------------------\n${"diff ".repeat(40)}.\n`;
    expect(commitMessageProblems(verbose)).toEqual([]);
    expect(commitMessageProblems(`Merge branch '${"x".repeat(80)}'\n`)).toEqual([]);
  });
});

/** A scratch git repository with one file staged. */
function scratchRepository(): { root: string; git: (...args: string[]) => string } {
  const root = mkdtempSync(join(tmpdir(), "soev-hooks-"));
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], {
      cwd: root,
      encoding: "utf8",
      stdio: "pipe",
    });
  git("init", "-q");
  writeFileSync(join(root, "file.txt"), "one\n");
  git("add", "file.txt");
  return { root, git };
}

describe("the commit-msg hook", () => {
  it("refuses a commit whose subject breaks the convention, saying why, and lets a good one through", () => {
    const { root, git } = scratchRepository();
    git("config", "core.hooksPath", HOOKS);
    const refused = spawnSync(
      "git",
      ["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", `${subject(80)}.`],
      {
        cwd: root,
        encoding: "utf8",
      },
    );
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("The subject is 81 characters; keep it to 72");
    expect(refused.stderr).toContain("The subject ends with a period; drop it.");
    git("commit", "-q", "-m", "Add the first file", "-m", "Because the test needs one.");
    expect(git("log", "--format=%s").trim()).toBe("Add the first file");
  });
});

describe("installHooks", () => {
  it("sets core.hooksPath in a git checkout that holds the hooks, once", () => {
    const { root, git } = scratchRepository();
    mkdirSync(join(root, "scripts", "git-hooks"), { recursive: true });
    writeFileSync(join(root, "scripts", "git-hooks", "commit-msg"), "#!/bin/sh\n");
    expect(installHooks(root)).toMatch(/^core.hooksPath set to scripts\/git-hooks/);
    expect(git("config", "--get", "core.hooksPath").trim()).toBe("scripts/git-hooks");
    expect(installHooks(root)).toBe("core.hooksPath is scripts/git-hooks already.");
  });

  it("leaves a hooks path the developer chose alone", () => {
    const { root, git } = scratchRepository();
    mkdirSync(join(root, "scripts", "git-hooks"), { recursive: true });
    writeFileSync(join(root, "scripts", "git-hooks", "commit-msg"), "#!/bin/sh\n");
    git("config", "core.hooksPath", ".husky");
    expect(installHooks(root)).toMatch(/^core.hooksPath is .husky; left alone/);
    expect(git("config", "--get", "core.hooksPath").trim()).toBe(".husky");
  });

  it("does nothing outside a git checkout, as in an installed package inside another repository", () => {
    const { root, git } = scratchRepository();
    const installed = join(root, "node_modules", "soev-agents");
    mkdirSync(join(installed, "scripts", "git-hooks"), { recursive: true });
    writeFileSync(join(installed, "scripts", "git-hooks", "commit-msg"), "#!/bin/sh\n");
    expect(installHooks(installed)).toBe("not a git checkout: no hooks installed.");
    expect(() => git("config", "--get", "core.hooksPath")).toThrow();
  });
});
