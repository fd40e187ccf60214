/**
 * The JSON API's query parameters: parsed and checked at the edge into numbers and a run id, so
 * that the warehouse only ever sees typed values. A bad one is a value naming the parameter, what
 * was expected and what came in (the server answers it with a 400).
 */

import { MAX_FUNNEL_RANGE_MS } from '@clickstream/warehouse';

/** Preset ranges the page offers, ending at `to` (default: now). */
export const RANGES = {
  '5m': 5,
  '15m': 15,
  '1h': 60,
  '6h': 360,
  '24h': 1440,
  '7d': 10_080,
} as const;
export type RangeName = keyof typeof RANGES;

/** Same alphabet as the ledger's run ids (results/runs/<run-id>/). */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** Earliest and latest instant accepted, so that nonsense years fail here and not in SQL. */
const MIN_MS = Date.UTC(2000, 0, 1);
const MAX_MS = Date.UTC(2100, 0, 1);

export const DEFAULTS = {
  range: '15m' as RangeName,
  funnelWindowS: 1800,
  limit: 10,
  activeS: 300,
  deadLetterS: 3600,
};

export interface ApiParams {
  fromMs: number;
  toMs: number;
  /** The instant "now" refers to (sessions active now, dead letters over the last hour). */
  atMs: number;
  runId: string | undefined;
  funnelWindowMs: number;
  limit: number;
  activeMs: number;
}

export interface BadParameter {
  parameter: string;
  expected: string;
  got: string | null;
}

export type Parsed = { ok: true; params: ApiParams } | { ok: false; error: BadParameter };

const KNOWN = ['range', 'from', 'to', 'at', 'run', 'window', 'limit', 'active'] as const;

class Bad extends Error {
  constructor(readonly detail: BadParameter) {
    super(detail.parameter);
  }
}

function fail(parameter: string, expected: string, got: string | null): never {
  throw new Bad({ parameter, expected, got });
}

/** An instant: epoch milliseconds, or an ISO 8601 date-time with a zone (2026-11-30T22:00:00Z). */
function instant(name: string, text: string): number {
  const expected = 'epoch milliseconds or an ISO 8601 date-time with a zone, between 2000 and 2100';
  let ms: number;
  if (/^\d{1,15}$/.test(text)) ms = Number(text);
  else if (/^\d{4}-\d{2}-\d{2}T[0-9:.]+(Z|[+-]\d{2}:?\d{2})$/.test(text)) ms = Date.parse(text);
  else return fail(name, expected, text);
  if (!Number.isSafeInteger(ms) || ms < MIN_MS || ms > MAX_MS) return fail(name, expected, text);
  return ms;
}

function integer(
  name: string,
  text: string | null,
  min: number,
  max: number,
  fallback: number,
): number {
  if (text === null) return fallback;
  const expected = `an integer from ${min} to ${max}`;
  if (!/^\d{1,9}$/.test(text)) return fail(name, expected, text);
  const n = Number(text);
  if (n < min || n > max) return fail(name, expected, text);
  return n;
}

/** Parses the query string of any /api/ endpoint; `nowMs` is the server's clock. */
export function parseApiParams(query: URLSearchParams, nowMs: number): Parsed {
  try {
    for (const key of query.keys()) {
      if (!(KNOWN as readonly string[]).includes(key))
        fail(key, `no such parameter; known: ${KNOWN.join(', ')}`, query.get(key));
      if (query.getAll(key).length > 1) fail(key, 'at most one value', query.getAll(key).join(','));
    }
    const get = (k: (typeof KNOWN)[number]): string | null => query.get(k);
    const atText = get('at');
    const atMs = atText === null ? nowMs : instant('at', atText);
    const toText = get('to');
    const toMs = toText === null ? atMs : instant('to', toText);
    const fromText = get('from');
    const rangeText = get('range');
    let fromMs: number;
    if (fromText !== null) {
      if (rangeText !== null) fail('range', 'either range or from, not both', rangeText);
      fromMs = instant('from', fromText);
    } else {
      const name = rangeText ?? DEFAULTS.range;
      if (!Object.prototype.hasOwnProperty.call(RANGES, name))
        fail('range', `one of ${Object.keys(RANGES).join(', ')}`, name);
      fromMs = toMs - RANGES[name as RangeName] * 60_000;
    }
    if (fromMs >= toMs)
      fail('from', `an instant before to (${new Date(toMs).toISOString()})`, fromText);
    if (toMs - fromMs > MAX_FUNNEL_RANGE_MS)
      fail('from', `a range of at most 7 days (to - from <= ${MAX_FUNNEL_RANGE_MS} ms)`, fromText);
    const run = get('run');
    if (run !== null && !RUN_ID.test(run)) fail('run', `a run id matching ${RUN_ID.source}`, run);
    const funnelWindowS = integer('window', get('window'), 1, 86_400, DEFAULTS.funnelWindowS);
    const limit = integer('limit', get('limit'), 1, 100, DEFAULTS.limit);
    const activeS = integer('active', get('active'), 1, 86_400, DEFAULTS.activeS);
    return {
      ok: true,
      params: {
        fromMs,
        toMs,
        atMs,
        runId: run ?? undefined,
        funnelWindowMs: funnelWindowS * 1000,
        limit,
        activeMs: activeS * 1000,
      },
    };
  } catch (err) {
    if (err instanceof Bad) return { ok: false, error: err.detail };
    throw err;
  }
}
