/**
 * Waits before trying again, spread so that many clients retrying after the same outage
 * do not come back at the same instant ("equal jitter": half the ceiling, plus up to the
 * other half at random), as Signal Desktop's BackOff does.
 */
export function withJitter(ceilingMs: number, random: () => number = Math.random): number {
  return Math.round(ceilingMs / 2 + (random() * ceilingMs) / 2);
}
