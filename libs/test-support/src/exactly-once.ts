/** The exactly-once checker of the integration tests: what was expected once against what a layer holds, as evidence, never a bare boolean. */

export interface OnceEvidence<K> {
  /** Expected, not observed. */
  missing: K[];
  /** Observed more than once. */
  duplicated: K[];
  /** Observed, never expected. */
  unexpected: K[];
}

/** Compares observed keys (with repeats) against the expected set; each list keeps at most `examples` keys. */
export function exactlyOnce<K>(
  expected: Iterable<K>,
  observed: Iterable<K>,
  examples = Number.POSITIVE_INFINITY,
): OnceEvidence<K> {
  const counts = new Map<K, number>();
  for (const k of observed) counts.set(k, (counts.get(k) ?? 0) + 1);
  return exactlyOnceCounts(expected, counts, examples);
}

/** The same from observed counts per key (e.g. a GROUP BY). */
export function exactlyOnceCounts<K>(
  expected: Iterable<K>,
  counts: ReadonlyMap<K, number>,
  examples = Number.POSITIVE_INFINITY,
): OnceEvidence<K> {
  const want = new Set(expected);
  const take = (keys: K[]): K[] => keys.slice(0, examples);
  return {
    missing: take([...want].filter((k) => (counts.get(k) ?? 0) === 0)),
    duplicated: take([...counts].filter(([, n]) => n > 1).map(([k]) => k)),
    unexpected: take([...counts.keys()].filter((k) => !want.has(k) && (counts.get(k) ?? 0) > 0)),
  };
}

/** True when nothing is missing, duplicated or unexpected. */
export function isExact(e: OnceEvidence<unknown>): boolean {
  return e.missing.length === 0 && e.duplicated.length === 0 && e.unexpected.length === 0;
}
