/**
 * The browser of the playground tests: Debian's chromium driven by playwright-core, nothing downloaded.
 * A machine without chromium fails the test with a message that names it, never skips it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";

/** Where the tests write their screenshots (ignored by git and prettier). */
export const SCREENSHOTS = join("test-results", "playground");

/** The chromium executable: CHROMIUM_PATH, else `chromium` on the PATH, else /usr/bin/chromium. */
export function chromiumPath(): string {
  const named = process.env.CHROMIUM_PATH;
  if (named) {
    if (!existsSync(named))
      throw new Error(
        `The playground tests need chromium: CHROMIUM_PATH names ${named}, which does not exist. ` +
          "Install Debian's chromium (`apt-get install -y chromium`) or point CHROMIUM_PATH at a chromium executable.",
      );
    return named;
  }
  try {
    const found = execFileSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).trim();
    if (found) return found;
  } catch {
    // Not on the PATH: try Debian's place below.
  }
  if (existsSync("/usr/bin/chromium")) return "/usr/bin/chromium";
  throw new Error(
    "The playground tests need chromium, which is not installed: run `apt-get install -y chromium` " +
      "(Debian's package; .ci/run does it), or set CHROMIUM_PATH to a chromium executable.",
  );
}

/** Launch chromium headless. */
export async function launchBrowser(): Promise<Browser> {
  // As root (CI containers), chromium runs only without its sandbox.
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: ["--no-sandbox"] });
}

/** Write a screenshot of what the page's window shows to SCREENSHOTS/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}
