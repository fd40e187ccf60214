/** Pure timeline math of a run: acked sends per second, the write pause, histogram quantiles per phase, recovery under the SLO. */

/** One second of a run. `age_s`: the probe's newest-seen age per layer (null when Prometheus had no sample). */
export interface TimelineRow {
  t: number;
  acked: number;
  age_s: Record<string, number | null>;
}

/** Per-second counts of acked send times (ms) over [fromS, toS), seconds since the epoch. */
export function ackedPerSecond(
  sendTimesMs: ArrayLike<number>,
  fromS: number,
  toS: number,
): number[] {
  const counts = new Array<number>(Math.max(0, toS - fromS)).fill(0);
  for (let i = 0; i < sendTimesMs.length; i++) {
    const s = Math.floor((sendTimesMs[i] as number) / 1000) - fromS;
    if (s >= 0 && s < counts.length) counts[s] = (counts[s] as number) + 1;
  }
  return counts;
}

export interface WritePause {
  /** The longest gap between two consecutive acked sends, ms. */
  gapMs: number;
  /** Send time of the last acked send before the gap. */
  fromMs: number;
  toMs: number;
}

/** The longest gap between consecutive acked sends (any order in, sorted here); null with fewer than two sends. */
export function writePause(sendTimesMs: ArrayLike<number>): WritePause | null {
  if (sendTimesMs.length < 2) return null;
  const sorted = Float64Array.from(sendTimesMs as ArrayLike<number>).sort();
  let best: WritePause = { gapMs: -1, fromMs: 0, toMs: 0 };
  for (let i = 1; i < sorted.length; i++) {
    const gap = (sorted[i] as number) - (sorted[i - 1] as number);
    if (gap > best.gapMs)
      best = { gapMs: gap, fromMs: sorted[i - 1] as number, toMs: sorted[i] as number };
  }
  return best;
}

/** A cumulative histogram at one instant: upper bound (Infinity for +Inf) to count. */
export type Buckets = ReadonlyMap<number, number>;

/**
 * The q-quantile of the observations between two snapshots of a cumulative histogram, interpolated
 * linearly inside the bucket as Prometheus' histogram_quantile does; null when nothing was observed.
 * A counter that went down (a restarted probe) counts from zero.
 */
export function quantileBetween(
  q: number,
  before: Buckets | undefined,
  after: Buckets,
): number | null {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const delta = bounds.map((le) => {
    const a = after.get(le) ?? 0;
    const b = before?.get(le) ?? 0;
    return a >= b ? a - b : a;
  });
  const total = delta[delta.length - 1] ?? 0;
  if (total <= 0) return null;
  const rank = q * total;
  for (let i = 0; i < bounds.length; i++) {
    if ((delta[i] as number) >= rank) {
      const upper = bounds[i] as number;
      const lower = i === 0 ? 0 : (bounds[i - 1] as number);
      // Beyond the last finite bound nothing is known but "more than it".
      if (!Number.isFinite(upper)) return lower;
      const below = i === 0 ? 0 : (delta[i - 1] as number);
      const inBucket = (delta[i] as number) - below;
      return inBucket <= 0 ? upper : lower + ((upper - lower) * (rank - below)) / inBucket;
    }
  }
  return bounds.length > 1 ? (bounds[bounds.length - 2] as number) : null;
}

/** A time series of cumulative histograms (epoch seconds to buckets). */
export type HistogramSeries = ReadonlyMap<number, Buckets>;

/** The snapshot at or just before `t` (the series is sparse when a scrape failed). */
export function snapshotAt(series: HistogramSeries, t: number): Buckets | undefined {
  let best: number | undefined;
  for (const s of series.keys()) if (s <= t && (best === undefined || s > best)) best = s;
  return best === undefined ? undefined : series.get(best);
}

export interface Phase {
  name: 'before' | 'during' | 'after';
  fromS: number;
  toS: number;
}

export type PhaseQuantiles = Record<Phase['name'], { p50: number | null; p99: number | null }>;

/** Freshness p50/p99 of each phase from the histogram snapshots at its ends. */
export function phaseQuantiles(series: HistogramSeries, phases: readonly Phase[]): PhaseQuantiles {
  const out = {} as PhaseQuantiles;
  for (const p of phases) {
    const end = snapshotAt(series, p.toS);
    const start = snapshotAt(series, p.fromS);
    out[p.name] =
      end === undefined || p.toS <= p.fromS
        ? { p50: null, p99: null }
        : {
            p50: round(quantileBetween(0.5, start, end)),
            p99: round(quantileBetween(0.99, start, end)),
          };
  }
  return out;
}

/** The layers whose age the freshness figures judge (windows sits behind a second Flink job, by design slower). */
export const SLO_LAYERS: readonly string[] = ['valid', 'clean'];

function sloAges(r: TimelineRow): (number | null)[] {
  return Object.entries(r.age_s)
    .filter(([layer]) => SLO_LAYERS.includes(layer))
    .map(([, a]) => a);
}

/**
 * Seconds from `fromS` until the age of every SLO layer (valid, clean) is at or under `sloS` and
 * stays there for `holdS` consecutive seconds (a missing sample breaks the streak); 0 if it never
 * left; null if never back.
 */
export function backUnderSlo(
  rows: readonly TimelineRow[],
  fromS: number,
  sloS: number,
  holdS = 15,
): number | null {
  const after = rows.filter((r) => r.t >= fromS).sort((a, b) => a.t - b.t);
  let streakStart: number | null = null;
  let prev: number | null = null;
  for (const r of after) {
    const ages = sloAges(r);
    const ok = ages.length > 0 && ages.every((a) => a !== null && a <= sloS);
    if (!ok || (prev !== null && r.t !== prev + 1)) streakStart = null;
    if (ok && streakStart === null) streakStart = r.t;
    prev = r.t;
    if (streakStart !== null && r.t - streakStart + 1 >= holdS) return streakStart - fromS;
  }
  return null;
}

/** The largest age any SLO layer (valid, clean) reached in [fromS, toS), with its layer; null when there was no sample. */
export function maxAge(
  rows: readonly TimelineRow[],
  fromS: number,
  toS: number,
): { ageS: number; layer: string; t: number } | null {
  let best: { ageS: number; layer: string; t: number } | null = null;
  for (const r of rows) {
    if (r.t < fromS || r.t >= toS) continue;
    for (const [layer, a] of Object.entries(r.age_s))
      if (SLO_LAYERS.includes(layer) && a !== null && (best === null || a > best.ageS))
        best = { ageS: a, layer, t: r.t };
  }
  return best;
}

function round(v: number | null): number | null {
  return v === null ? null : Math.round(v * 1000) / 1000;
}
