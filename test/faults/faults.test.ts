// The fault suite: worker processes SIGKILLed at random moments of turns with parallel tool calls (on
// SQLite and PostgreSQL), PostgreSQL backends terminated 25 times during a turn, and a follower's
// connections terminated while it follows. In every trial no process dies of the fault, no event is lost
// or doubled, the turn completes, and its trace equals an uninterrupted run's, timestamps aside.
// SOEV_FAULT_TRIALS sets the trials of each kind (default 2 kills per store, 1 of each other kind);
// `npm run faults` runs more and writes the table of bench/README.md (SOEV_FAULTS_REPORT=1).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeSection, markdownTable } from "../../bench/report.js";
import { connectClient, type TestClient } from "../support/temporal.js";
import { postgresUrl } from "../support/postgres.js";
import { openStore, sharedBundleFile, type StoreKind } from "../temporal/harness.js";
import {
  TERMINATIONS,
  adminPool,
  budgetTrial,
  followerTrial,
  killTrial,
  terminateTrial,
  uninterruptedRun,
  type Timeless,
  type TrialOutcome,
  type TrialPlace,
} from "./trials.js";

const configured = Number(process.env.SOEV_FAULT_TRIALS || 0);
/** Trials of each kind: kills per store, and terminations and followers on PostgreSQL. */
const TRIALS = { kill: configured || 2, terminate: configured || 1, follower: configured || 1 };
/** Generous: a trial takes seconds, and this machine may be loaded many times over. */
const PER_TRIAL = 120_000;

let temporal: TestClient;
const outcomes: TrialOutcome[] = [];
const cleanRuns: { store: StoreKind; equal: boolean }[] = [];

beforeAll(async () => {
  temporal = await connectClient();
  await sharedBundleFile();
});

afterAll(async () => {
  await temporal.close();
  if (process.env.SOEV_FAULTS_REPORT === "1") report();
});

/** Everything that must hold of every trial; a failing trial is listed with where its fault struck. */
function badTrials(trials: readonly TrialOutcome[]): TrialOutcome[] {
  return trials.filter(
    (trial) => trial.crashes > 0 || trial.lost > 0 || trial.doubled > 0 || !trial.completed || !trial.equal,
  );
}

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let place: TrialPlace;
  let expected: Timeless | undefined;
  // The uninterrupted run's trace, run once per store (a test run alone with -t runs it too).
  const reference = async () => (expected ??= await uninterruptedRun(place));
  beforeAll(async () => {
    place = { client: temporal.client, store: await openStore(kind), kind };
  });
  afterAll(() => place.store.close());

  it(
    "two uninterrupted runs with different tool timings record the same trace",
    { timeout: 2 * PER_TRIAL },
    async () => {
      expected = await uninterruptedRun(place);
      const again = await uninterruptedRun(place);
      cleanRuns.push({ store: kind, equal: JSON.stringify(again) === JSON.stringify(expected) });
      expect(again).toEqual(expected);
    },
  );

  it(
    `a worker SIGKILLed at random moments (${TRIALS.kill} trials): each turn completes with the uninterrupted trace`,
    { timeout: TRIALS.kill * PER_TRIAL },
    async () => {
      const trials: TrialOutcome[] = [];
      for (let trial = 0; trial < TRIALS.kill; trial++) trials.push(await killTrial(place, await reference()));
      outcomes.push(...trials);
      expect(badTrials(trials)).toEqual([]);
    },
  );

  it(
    `a worker SIGKILLed in the budget's last model call (${TRIALS.kill} trials): no retry spends past the budget`,
    { timeout: TRIALS.kill * PER_TRIAL },
    async () => {
      const trials = [];
      for (let trial = 0; trial < TRIALS.kill; trial++) trials.push(await budgetTrial(place));
      expect(trials.map(({ calls, failures, endedOnBudget }) => ({ calls, failures, endedOnBudget }))).toEqual(
        trials.map(() => ({ calls: 5, failures: ["BudgetExceededError"], endedOnBudget: true })),
      );
    },
  );

  if (kind === "postgres") {
    it(
      `PostgreSQL backends terminated ${TERMINATIONS} times during a turn (${TRIALS.terminate} trials): the worker lives, the turn completes`,
      { timeout: TRIALS.terminate * PER_TRIAL },
      async () => {
        const admin = adminPool(postgresUrl());
        try {
          const trials: TrialOutcome[] = [];
          for (let trial = 0; trial < TRIALS.terminate; trial++)
            trials.push(await terminateTrial(place, admin, await reference()));
          outcomes.push(...trials);
          expect(badTrials(trials)).toEqual([]);
        } finally {
          await admin.end();
        }
      },
    );

    it(
      `a follower whose connections are terminated (${TRIALS.follower} trials) delivers the whole turn, each event once`,
      { timeout: TRIALS.follower * PER_TRIAL },
      async () => {
        const admin = adminPool(postgresUrl());
        try {
          const trials: TrialOutcome[] = [];
          for (let trial = 0; trial < TRIALS.follower; trial++)
            trials.push(await followerTrial(place, admin, await reference()));
          outcomes.push(...trials);
          expect(badTrials(trials)).toEqual([]);
        } finally {
          await admin.end();
        }
      },
    );
  }
});

/** The Faults section of bench/README.md: the trials of this run by kind and store, and what they saw. */
function report(): void {
  const kinds = [...new Set(outcomes.map((trial) => `${trial.kind}|${trial.store}`))];
  const sum = (trials: TrialOutcome[], count: (trial: TrialOutcome) => number) =>
    trials.reduce((total, trial) => total + count(trial), 0);
  const rows = kinds.map((key) => {
    const trials = outcomes.filter((trial) => `${trial.kind}|${trial.store}` === key);
    const [kind, store] = key.split("|");
    return [
      DESCRIPTIONS[kind as TrialOutcome["kind"]],
      store!,
      trials.length,
      sum(trials, (trial) => trial.crashes),
      sum(trials, (trial) => trial.lost),
      sum(trials, (trial) => trial.doubled),
      sum(trials, (trial) => (trial.completed ? 1 : 0)),
      sum(trials, (trial) => (trial.equal ? 1 : 0)),
    ];
  });
  const total = outcomes.length;
  writeSection(
    "Faults (`npm run faults`)",
    [
      `${total} fault trials of one turn with parallel tool calls (tools waiting a random time up to 250 ms), ` +
        `${new Date().toISOString().slice(0, 10)}. A trial's trace is compared with an uninterrupted run's, ` +
        "timestamps aside; a follower's events with the trace. Crashes: processes that ended of the fault.",
      "",
      markdownTable([
        ["fault", "store", "trials", "crashes", "events lost", "events doubled", "turns completed", "traces equal"],
        ...rows,
      ]),
      "",
      `Two uninterrupted runs with different tool timings recorded the same trace: ${cleanRuns
        .map((run) => `${run.store} ${run.equal ? "yes" : "no"}`)
        .join(", ")}.`,
      "",
      `Run it with \`SOEV_FAULT_TRIALS=<trials of each kind> npm run faults\` (needs the Temporal CLI and PostgreSQL, as \`npm test\`).`,
    ].join("\n"),
  );
}

const DESCRIPTIONS: Record<TrialOutcome["kind"], string> = {
  kill: "worker SIGKILLed at a random gate",
  terminate: `PostgreSQL backends terminated in ${TERMINATIONS} rounds in a turn`,
  follower: "a follower's connections terminated",
};
