// Rounds of micro-benchmarks: each case is timed for every implementation in turn (the order
// rotating from round to round, so that neither always runs first on a warm or a noisy moment),
// and shown as the median with min–max of the rounds, in nanoseconds per operation.
//
// Time is the process's CPU time (user + system), not wall time: on a shared machine where other
// processes take the cores, wall time counts the moments this one waited for a core. (Instruction
// counts would be better still, but `perf stat -e instructions` is not supported on this machine.)
// CLOCK=wall measures wall time instead.

/** Nanoseconds of CPU time used by this process so far (microsecond resolution), or of wall time. */
export const clock: () => bigint =
  process.env.CLOCK === 'wall'
    ? () => process.hrtime.bigint()
    : () => {
        const { user, system } = process.cpuUsage();
        return BigInt(user + system) * 1000n;
      };

export interface Contender {
  name: string;
  /**
   * Runs `ops` operations; returns something derived from the results, so that none is optimised
   * away, or a bigint: the nanoseconds to count, when the run times only part of its work itself.
   */
  run: (ops: number) => unknown;
}

export const ROUNDS = Number(process.env.ROUNDS ?? 7);

let sink: unknown;

/** ns per operation of each contender, one value per round. */
export function measure(contenders: readonly Contender[], ops: number, rounds = ROUNDS): Map<string, number[]> {
  const results = new Map(contenders.map((c) => [c.name, [] as number[]]));
  for (const c of contenders) sink = c.run(Math.max(1, ops >> 2)); // warm-up: let the JIT settle
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const c = contenders[(round + k) % contenders.length];
      const start = clock();
      sink = c.run(ops);
      const elapsed = typeof sink === 'bigint' ? sink : clock() - start;
      results.get(c.name)!.push(Number(elapsed) / ops);
    }
  }
  if (sink === Symbol.for('never')) console.log(sink);
  return results;
}

export function summary(values: readonly number[]): { median: number; min: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const median = n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  return { median, min: sorted[0], max: sorted[n - 1] };
}

/** `median (min–max) ns/op` with enough digits for the size of the figure. */
export function spread(values: readonly number[], unit = 'ns/op'): string {
  const { median, min, max } = summary(values);
  const digits = median < 10 ? 2 : median < 100 ? 1 : 0;
  return `${median.toFixed(digits)} (${min.toFixed(digits)}–${max.toFixed(digits)}) ${unit}`;
}

/** Prints one case: a line per contender, with its median's ratio to the first contender's. */
export function report(title: string, results: Map<string, number[]>, unit = 'ns/op'): void {
  console.log(`\n${title}`);
  const [baseline] = results.values();
  const base = summary(baseline).median;
  for (const [name, values] of results) {
    const ratio = summary(values).median / base;
    console.log(`  ${name.padEnd(42)} ${spread(values, unit).padEnd(34)} ×${ratio.toFixed(2)}`);
  }
}
