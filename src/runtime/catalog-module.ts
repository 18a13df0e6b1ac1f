/** Catalog modules: an app's module that exports (as default, or as `catalog`) a function of the store returning its AgentCatalog. */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ValueError } from "../domain/errors.js";
import type { TraceStore } from "../ports/store.js";
import type { AgentCatalog } from "./catalog.js";

/** A catalog module's export: the catalog of its agents on the given store. */
export type CatalogOf = (store: TraceStore) => AgentCatalog | Promise<AgentCatalog>;

/**
 * The catalog that the module at `path` makes on `store`.
 * @throws ValueError when the module exports no such function.
 */
export async function catalogFrom(path: string, store: TraceStore): Promise<AgentCatalog> {
  const module = (await import(pathToFileURL(resolve(path)).href)) as { default?: unknown; catalog?: unknown };
  const make = module.default ?? module.catalog;
  if (typeof make !== "function")
    throw new ValueError(
      `${path} exports no function (default or "catalog") that takes a store and returns an AgentCatalog.`,
    );
  return (make as CatalogOf)(store);
}
