/**
 * The JSON API: one handler per panel, each a function of (query string, dependencies) to an HTTP
 * status and a JSON body. No server, no ClickHouse client here: both are injected, so the handlers
 * are tested without a network and the same code runs against the real stack.
 */

import {
  activeSessions,
  deadLettersByReason,
  funnel,
  revenuePerMinute,
  topProducts,
  type DashboardRange,
  type RevenueSource,
  type Warehouse,
} from '@clickstream/warehouse';
import { PROBE_RUN_PREFIX } from '@clickstream/contracts';
import { DEFAULTS, parseApiParams, RANGES, type ApiParams } from './params';
import { readLayers, type Fetch } from './prometheus';

export interface ApiDeps {
  reader: Pick<Warehouse, 'query'>;
  prometheusUrl: string;
  fetch: Fetch;
  revenueSource: RevenueSource;
  refreshMs: number;
  queryTimeoutMs: number;
  now: () => number;
  /** Called with each ClickHouse read's outcome (metrics, health). */
  observe?: (endpoint: string, seconds: number, ok: boolean) => void;
}

export interface ApiAnswer {
  status: number;
  body: unknown;
}

export const ENDPOINTS = [
  'funnel',
  'revenue',
  'top-products',
  'active-sessions',
  'dead-letters',
  'layers',
  'config',
] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

function range(p: ApiParams, fromMs: number, toMs: number): DashboardRange {
  return { fromMs, toMs, runId: p.runId, excludeRunPrefix: PROBE_RUN_PREFIX };
}

const iso = (ms: number): string => new Date(ms).toISOString();

async function read(
  endpoint: Endpoint,
  p: ApiParams,
  d: ApiDeps,
): Promise<{ window: [number, number]; data: unknown }> {
  const chosen = range(p, p.fromMs, p.toMs);
  switch (endpoint) {
    case 'funnel':
      return {
        window: [p.fromMs, p.toMs],
        data: await funnel(d.reader, { ...chosen, windowMs: p.funnelWindowMs }),
      };
    case 'revenue':
      return {
        window: [p.fromMs, p.toMs],
        data: {
          source: d.revenueSource,
          minutes: await revenuePerMinute(d.reader, chosen, d.revenueSource),
        },
      };
    case 'top-products':
      return { window: [p.fromMs, p.toMs], data: await topProducts(d.reader, chosen, p.limit) };
    case 'active-sessions': {
      const r = range(p, p.atMs - p.activeMs, p.atMs);
      return { window: [r.fromMs, r.toMs], data: await activeSessions(d.reader, r) };
    }
    case 'dead-letters': {
      const r = range(p, p.atMs - DEFAULTS.deadLetterS * 1000, p.atMs);
      return {
        window: [r.fromMs, r.toMs],
        data: { reasons: await deadLettersByReason(d.reader, r) },
      };
    }
    case 'layers':
      return {
        window: [p.atMs, p.atMs],
        data: { rows: await readLayers(d.prometheusUrl, p.atMs, d.queryTimeoutMs, d.fetch) },
      };
    case 'config':
      return {
        window: [p.fromMs, p.toMs],
        data: {
          refreshMs: d.refreshMs,
          revenueSource: d.revenueSource,
          ranges: Object.keys(RANGES),
          defaults: DEFAULTS,
        },
      };
  }
}

/** Answers GET /api/<endpoint>?<query>: 400 naming a bad parameter, 502 when ClickHouse fails, else 200. */
export async function answer(
  endpoint: string,
  query: URLSearchParams,
  d: ApiDeps,
): Promise<ApiAnswer> {
  if (!(ENDPOINTS as readonly string[]).includes(endpoint))
    return {
      status: 404,
      body: { error: 'not_found', expected: `one of /api/${ENDPOINTS.join(', /api/')}` },
    };
  const parsed = parseApiParams(query, d.now());
  if (!parsed.ok) return { status: 400, body: { error: 'bad_parameter', ...parsed.error } };
  const p = parsed.params;
  const started = performance.now();
  try {
    const { window, data } = await read(endpoint as Endpoint, p, d);
    const seconds = (performance.now() - started) / 1000;
    d.observe?.(endpoint, seconds, true);
    return {
      status: 200,
      body: {
        params: {
          from: iso(window[0]),
          to: iso(window[1]),
          fromMs: window[0],
          toMs: window[1],
          at: iso(p.atMs),
          atMs: p.atMs,
          run: p.runId ?? null,
          windowS: p.funnelWindowMs / 1000,
          limit: p.limit,
          activeS: p.activeMs / 1000,
        },
        tookMs: Math.round(seconds * 1000),
        data,
      },
    };
  } catch (err) {
    d.observe?.(endpoint, (performance.now() - started) / 1000, false);
    return {
      status: 502,
      body: {
        error: 'query_failed',
        detail: err instanceof Error ? err.message.slice(0, 500) : String(err),
      },
    };
  }
}
