#!/usr/bin/env node
/** The `soev-agents` executable: runs {@link main} on the process's arguments (main.ts stays importable by tests). */
import { main } from "./main.js";

process.exitCode = await main(process.argv.slice(2));
