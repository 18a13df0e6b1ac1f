/* global process, console -- Node globals: this file is plain JavaScript outside the TypeScript project. */
// `npm install`'s "prepare" step: point git at scripts/git-hooks (the commit-msg hook), in a git checkout
// of this repository only. In an installed package, a tarball or a folder without git it does nothing.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const HOOKS = "scripts/git-hooks";

/** What the installer did in `root`, one line; it never fails the install. */
export function installHooks(root, git = (...args) => execFileSync("git", args, { cwd: root, encoding: "utf8" })) {
  // `.git` at the root itself (a folder, or a file in a worktree): a package inside another repository's
  // node_modules has none, and must not change that repository's hooks.
  if (!existsSync(join(root, ".git"))) return "not a git checkout: no hooks installed.";
  if (!existsSync(join(root, HOOKS, "commit-msg"))) return `no ${HOOKS}/commit-msg here: no hooks installed.`;
  let current = "";
  try {
    current = git("config", "--get", "core.hooksPath").trim();
  } catch (error) {
    // `git config --get` exits 1 when the key is unset; anything else means git itself is missing.
    if (error?.status !== 1) return "git is not available: no hooks installed.";
  }
  if (current === HOOKS) return `core.hooksPath is ${HOOKS} already.`;
  if (current !== "") return `core.hooksPath is ${current}; left alone (see CONTRIBUTING.md to use ${HOOKS}).`;
  git("config", "core.hooksPath", HOOKS);
  return `core.hooksPath set to ${HOOKS}: commit messages are checked (CONTRIBUTING.md).`;
}

// npm runs "prepare" on `npm pack` and `npm publish` too: hooks are for a developer's `npm install` or `npm ci`.
const command = process.env.npm_command;
if (
  process.argv[1] &&
  import.meta.filename === process.argv[1] &&
  (!command || command === "install" || command === "ci")
) {
  console.log(`install-hooks: ${installHooks(process.cwd())}`);
}
