/**
 * The Host check: the app answers only requests addressed to one of its own names. A web page that points
 * a name of its own at 127.0.0.1 (DNS rebinding) sends its name in `Host`, so the app refuses it.
 */
import type { MiddlewareHandler } from "hono";
import { ProblemError, problemResponse } from "./problems.js";

/** The loopback names the app answers to by default. */
export const LOOPBACK_HOSTS: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];

/** Whether `hostname` (as `new URL().hostname` writes it, IPv6 in brackets) is this machine's loopback. */
export function isLoopback(hostname: string): boolean {
  const name = hostname.toLowerCase();
  return name === "localhost" || name === "[::1]" || name === "::1" || /^127(\.\d{1,3}){3}$/.test(name);
}

// A Host header: a name or an IPv4 address, or an IPv6 address in brackets, and an optional port.
const HOST = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/i;

/** The name of a Host header without its port, lower case; null when it is not a host (a path, user info). */
export function hostName(header: string): string | null {
  const match = HOST.exec(header.trim());
  return match ? match[1]!.toLowerCase() : null;
}

/** Refuse (421 Misdirected Request) a request whose Host is not among `names`; answer the rest. */
export function hostCheck(names: readonly string[]): MiddlewareHandler {
  const allowed = new Set(names.map((name) => name.toLowerCase()));
  return async (c, next) => {
    const header = c.req.header("host") ?? new URL(c.req.url).host;
    const name = hostName(header);
    if (name === null || !allowed.has(name))
      return problemResponse(
        c,
        new ProblemError(
          421,
          "Unknown host",
          `This app does not answer to the host "${header.slice(0, 100)}": address it by one of its names ` +
            `(${[...allowed].join(", ")}), or add this name to the app's \`hosts\`.`,
        ),
      );
    await next();
  };
}
