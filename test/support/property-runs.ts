/**
 * The runs of a fast-check property: `base` in the unit project, more where SOEV_PROPERTY_RUNS asks for them.
 * .ci/run sets it for a deeper search after the tests, so a rare case is found without slowing every `npm test`.
 */
export function propertyRuns(base: number, env: NodeJS.ProcessEnv = process.env): number {
  const asked = env.SOEV_PROPERTY_RUNS;
  if (asked === undefined || asked === "") return base;
  const runs = Number(asked);
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(
      `SOEV_PROPERTY_RUNS must be a whole number of runs above 0, not "${asked}"; unset it for the default.`,
    );
  return Math.max(base, runs);
}
