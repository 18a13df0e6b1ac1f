/**
 * The search attributes of a turn's workflow, so that operators find a thread's turns, or an agent's, in
 * the Temporal UI and with `temporal workflow list --query`. Workflow code may import the keys: this file
 * imports only @temporalio/common at run time (the Connection is a type).
 */
import { SearchAttributeType, defineSearchAttributeKey, type SearchAttributePair } from "@temporalio/common";
import type { Connection } from "@temporalio/client";
import { SearchAttributeConflictError, SearchAttributeRegistrationError } from "./errors.js";

/** The thread id of a turn (Keyword): `SoevThreadId = "..."` lists every turn of that thread. */
export const THREAD_SEARCH_ATTRIBUTE = defineSearchAttributeKey("SoevThreadId", SearchAttributeType.KEYWORD);

/** The agent that runs a turn (Keyword): `SoevAgent = "..."` lists that agent's turns. */
export const AGENT_SEARCH_ATTRIBUTE = defineSearchAttributeKey("SoevAgent", SearchAttributeType.KEYWORD);

/**
 * The thread's total tokens when a turn ended (Int), set as the turn closes: `SoevThreadTokens > 100000` finds the
 * expensive threads, `ORDER BY` is not offered by every visibility store, so list and sort on the client.
 */
export const THREAD_TOKENS_SEARCH_ATTRIBUTE = defineSearchAttributeKey("SoevThreadTokens", SearchAttributeType.INT);

/** Every search attribute soev-agents sets on a workflow; a namespace must have them all registered. */
export const SOEV_SEARCH_ATTRIBUTES = [
  THREAD_SEARCH_ATTRIBUTE,
  AGENT_SEARCH_ATTRIBUTE,
  THREAD_TOKENS_SEARCH_ATTRIBUTE,
] as const;

/** The search attribute values of one turn's workflow, for `typedSearchAttributes` when starting it. */
export function turnSearchAttributes(turn: { threadId: string; agent: string }): SearchAttributePair[] {
  return [
    { key: THREAD_SEARCH_ATTRIBUTE, value: turn.threadId },
    { key: AGENT_SEARCH_ATTRIBUTE, value: turn.agent },
  ];
}

/** temporal.api.enums.v1.IndexedValueType by the key's type: wire numbers, stable by protocol. */
const INDEXED_VALUE_TYPES: Partial<Record<SearchAttributeType, number>> = {
  [SearchAttributeType.KEYWORD]: 2,
  [SearchAttributeType.INT]: 3,
};

/** gRPC's ALREADY_EXISTS: another process registered the attribute between our list and our add. */
const ALREADY_EXISTS = 6;

/**
 * Registers the soev-agents search attributes in `namespace` through the operator service. Idempotent:
 * attributes already registered with the right type are left alone, so every worker may call it at start.
 * Returns the names it added (empty when all were there).
 *
 * @throws SearchAttributeConflictError when a name is registered with another type.
 * @throws SearchAttributeRegistrationError when the server cannot be asked or refuses.
 */
export async function registerSearchAttributes(
  connection: Pick<Connection, "operatorService">,
  namespace: string,
): Promise<string[]> {
  const registered = await listCustomAttributes(connection, namespace);
  const missing: Record<string, number> = {};
  for (const key of SOEV_SEARCH_ATTRIBUTES) {
    const wanted = INDEXED_VALUE_TYPES[key.type]!;
    const existing = registered[key.name];
    if (existing === undefined) {
      missing[key.name] = wanted;
    } else if (existing !== wanted) {
      throw new SearchAttributeConflictError(
        `Search attribute ${key.name} is registered in namespace "${namespace}" with another type than ${key.type}; ` +
          `remove it (temporal operator search-attribute remove --name ${key.name}) or use another namespace.`,
        { details: { name: key.name, namespace, expected: key.type } },
      );
    }
  }
  const names = Object.keys(missing);
  if (names.length === 0) return [];
  try {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
  } catch (error) {
    if (grpcCode(error) !== ALREADY_EXISTS) {
      throw new SearchAttributeRegistrationError(
        `Could not register search attributes ${names.join(", ")} in namespace "${namespace}": ${messageOf(error)}`,
        { cause: error, details: { namespace, names } },
      );
    }
  }
  return names;
}

async function listCustomAttributes(
  connection: Pick<Connection, "operatorService">,
  namespace: string,
): Promise<Record<string, number>> {
  try {
    const response = await connection.operatorService.listSearchAttributes({ namespace });
    return response.customAttributes ?? {};
  } catch (error) {
    throw new SearchAttributeRegistrationError(
      `Could not list the search attributes of namespace "${namespace}": ${messageOf(error)}`,
      { cause: error, details: { namespace } },
    );
  }
}

function grpcCode(error: unknown): number | undefined {
  return typeof error === "object" && error !== null && "code" in error && typeof error.code === "number"
    ? error.code
    : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
