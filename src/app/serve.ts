/** serveApp: listen with Node's HTTP server, and shut down gracefully on SIGINT and SIGTERM. */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { ValueError } from "../domain/errors.js";
import type { SoevApp } from "./app.js";

/** Where and how serveApp listens. */
export interface ServeOptions {
  /** Default 3000; 0 takes a free port. */
  port?: number;
  /** Default "127.0.0.1": private unless told otherwise. */
  hostname?: string;
  /** Stop on SIGINT and SIGTERM. Default true. */
  signals?: boolean;
  /** Stops the server when it aborts. */
  signal?: AbortSignal;
}

/** A listening app. */
export interface ServedApp {
  /** The base URL, such as http://127.0.0.1:3000. */
  url: string;
  port: number;
  /** Stop taking connections, end the event streams, wait for the open requests, close the app. Idempotent. */
  close(): Promise<void>;
  /** Resolves when the server has stopped. */
  closed: Promise<void>;
}

/** Listen; resolves once the server listens. */
export async function serveApp(app: SoevApp, options: ServeOptions = {}): Promise<ServedApp> {
  const port = options.port ?? 3000;
  const hostname = options.hostname ?? "127.0.0.1";
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ValueError(`serveApp's port must be an integer from 0 to 65535, not ${String(port)}.`);
  let server!: Server;
  const info = await new Promise<AddressInfo>((resolve, reject) => {
    server = serve({ fetch: app.fetch, port, hostname }, resolve) as Server;
    server.once("error", reject);
  });
  let ended!: () => void;
  const closed = new Promise<void>((resolve) => (ended = resolve));
  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      for (const name of ["SIGINT", "SIGTERM"] as const) process.off(name, close);
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      // The event streams are long requests: ending them lets the server close.
      await app.close();
      server.closeIdleConnections();
      await stopped;
      ended();
    })());
  if (options.signals !== false) for (const name of ["SIGINT", "SIGTERM"] as const) process.once(name, close);
  options.signal?.addEventListener("abort", () => void close(), { once: true });
  const shown = info.address.includes(":") ? `[${info.address}]` : info.address;
  return { url: `http://${shown}:${info.port}`, port: info.port, close, closed };
}
