/** The few statistics the benchmark needs: medians with their spread, and latency percentiles. */

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
  n: number;
}

export function spread(xs: number[]): Spread {
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), n: xs.length };
}

export interface Percentiles {
  p50: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles: p99 of 2,000 samples is the 1,980th smallest. */
export function percentiles(values: ArrayLike<number>): Percentiles {
  const s = Array.from(values).sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
  return { p50: at(0.5), p99: at(0.99), max: s[s.length - 1] };
}
