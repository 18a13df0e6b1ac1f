/**
 * The settings of `npm run app` from its environment: where it listens, its API keys and the host names it
 * answers to. The well-known default key `dev-key` serves only on loopback, where the Host check keeps web
 * pages out; listening anywhere else needs keys of your own.
 */
import { ValueError } from "../domain/errors.js";
import { isLoopback, LOOPBACK_HOSTS } from "./hosts.js";

/** The key `npm run app` takes when SOEV_API_KEYS is not set, of principal "dev". */
export const DEV_KEY = "dev-key";

/** What `npm run app` listens on and answers to. */
export interface RunSettings {
  port: number;
  /** The address it listens on: HOST, default 127.0.0.1. */
  hostname: string;
  /** The principal of each API key. */
  keys: Map<string, string>;
  /** The host names it answers to: the loopback names and SOEV_APP_HOSTS. */
  hosts: string[];
}

/**
 * Read PORT, HOST, SOEV_API_KEYS ("key=principal,...") and SOEV_APP_HOSTS ("name,name").
 * @throws ValueError for a malformed value, or for the default key on an address other than loopback.
 */
export function runSettings(env: Readonly<Record<string, string | undefined>>): RunSettings {
  const hostname = env.HOST || "127.0.0.1";
  const keys = apiKeys(env.SOEV_API_KEYS || `${DEV_KEY}=dev`);
  if (
    !isLoopback(hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname) &&
    keys.has(DEV_KEY)
  )
    throw new ValueError(
      `npm run app refuses the well-known key "${DEV_KEY}" on ${hostname}, which is not loopback: anyone who reaches it ` +
        `would know the key. Set SOEV_API_KEYS="<key>=<principal>" with a key of your own (such as \`openssl rand -hex 24\`).`,
    );
  const named = (env.SOEV_APP_HOSTS ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  const port = Number(env.PORT || 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ValueError(`PORT must be an integer from 0 to 65535, not "${env.PORT}".`);
  return { port, hostname, keys, hosts: [...LOOPBACK_HOSTS, ...named] };
}

/** The API keys of SOEV_API_KEYS ("key=principal,..."). */
export function apiKeys(value: string): Map<string, string> {
  const keys = new Map<string, string>();
  for (const pair of value.split(",")) {
    const [key, principal] = pair.split("=").map((part) => part.trim());
    if (!key || !principal)
      throw new ValueError(`SOEV_API_KEYS must read "key=principal,key=principal", not "${value}".`);
    keys.set(key, principal);
  }
  return keys;
}
