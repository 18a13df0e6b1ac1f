/** Point git at scripts/git-hooks in a git checkout of this repository; what it did, one line. Never throws for a missing checkout or git. */
export declare function installHooks(root: string, git?: (...args: string[]) => string): string;
