/**
 * One turn of the live-latency bench as a client of the app sees it: start it (POST /threads), follow its
 * native event stream (GET /threads/{id}/events, the SSE client of the app's tests) and note, for each
 * fragment, how long after the model sent it the client read it.
 */
import { readEvents } from "../../test/app/sse.js";
import { API_KEY } from "./topologies.js";
import { now, stampsOf, streamPrompt } from "./stamping-server.js";

/** What the client saw of one turn. */
export interface FollowedTurn {
  label: string;
  /** Milliseconds from the model's send to the client's read, one per delta. */
  latencies: number[];
  /** When the client sent POST /threads, and when it read the first fragment (null when it never came). */
  startedAt: number;
  firstReadAt: number | null;
  /** Fragments that carried more than one delta (a path that coalesces would show here). */
  coalesced: number;
  /** The `end` event's status. */
  status: string;
}

const HEADERS = { authorization: `Bearer ${API_KEY}` };

/** Start a turn of the agent "assistant" at `app` whose model streams under `label`, and follow it to its end. */
export async function followTurn(app: string, label: string): Promise<FollowedTurn> {
  const startedAt = now();
  const response = await fetch(`${app}/threads`, {
    method: "POST",
    headers: { ...HEADERS, "content-type": "application/json" },
    body: JSON.stringify({ agent: "assistant", input: streamPrompt(label) }),
  });
  if (response.status !== 202) throw new Error(`POST /threads answered ${response.status}: ${await response.text()}`);
  const { events } = (await response.json()) as { events: string };
  const turn: FollowedTurn = { label, latencies: [], startedAt, firstReadAt: null, coalesced: 0, status: "none" };
  await readEvents(events, HEADERS, (message) => {
    const readAt = now();
    if (message.event === "fragment") {
      const stamps = stampsOf(String(message.data.text));
      for (const sentAt of stamps) turn.latencies.push(readAt - sentAt);
      if (stamps.length > 1) turn.coalesced++;
      if (message.data.index === 0) turn.firstReadAt ??= readAt;
    }
    if (message.event === "end") turn.status = String(message.data.status);
    return message.event === "end";
  });
  return turn;
}
