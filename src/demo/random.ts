/**
 * A small seeded PRNG (mulberry32): the demo must be reproducible from its seed alone, which
 * Math.random() cannot give, and 32 bits of state are plenty for made-up data.
 */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, bound). */
  below(bound: number): number {
    return Math.floor(this.next() * bound);
  }

  /** An integer in [min, max], both included. */
  between(min: number, max: number): number {
    return min + this.below(max - min + 1);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)];
  }

  /** `count` distinct integers of [1, max], in drawing order (callers keep lists unsorted, as Django's are). */
  distinctIds(count: number, max: number): number[] {
    const wanted = Math.min(count, max);
    const chosen = new Set<number>();
    while (chosen.size < wanted) chosen.add(1 + this.below(max));
    return [...chosen];
  }
}

/**
 * An independent stream per purpose, so that asking for more openings does not change the users
 * or the projects of the same seed.
 */
export function streamRandom(seed: number, purpose: string): Random {
  // Seeds above 2^32 keep their high bits instead of wrapping onto a smaller seed.
  let h = mix(0x9e3779b9 ^ (seed >>> 0));
  h = mix(h ^ (Math.floor(seed / 4294967296) >>> 0));
  for (let i = 0; i < purpose.length; i++) h = mix(h ^ purpose.charCodeAt(i));
  return new Random(h);
}

/** murmur3's 32-bit finaliser: spreads every input bit over the whole state. */
function mix(value: number): number {
  let h = value >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
