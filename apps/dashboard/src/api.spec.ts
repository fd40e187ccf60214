import { answer, type ApiDeps } from './api';

const NOW = Date.UTC(2026, 10, 30, 22, 0, 0);

function deps(rows: Record<string, unknown>[] = [], fail = false): { d: ApiDeps; sql: string[] } {
  const sql: string[] = [];
  const d: ApiDeps = {
    reader: {
      query: <T>(s: string, params?: Record<string, unknown>) => {
        sql.push(`${s} ${JSON.stringify(params)}`);
        return fail ? Promise.reject(new Error('Code: 241 memory')) : Promise.resolve(rows as T[]);
      },
    } as ApiDeps['reader'],
    prometheusUrl: 'http://127.0.0.1:1',
    fetch: () => Promise.reject(new Error('down')),
    revenueSource: 'clean',
    refreshMs: 5000,
    queryTimeoutMs: 100,
    now: () => NOW,
  };
  return { d, sql };
}

describe('API handlers', () => {
  it('answers a bad parameter with 400 naming it, before any query', async () => {
    const { d, sql } = deps();
    const a = await answer('funnel', new URLSearchParams('range=3h'), d);
    expect(a.status).toBe(400);
    expect(a.body).toMatchObject({ error: 'bad_parameter', parameter: 'range', got: '3h' });
    expect(sql).toHaveLength(0);
  });

  it('answers an unknown endpoint with 404 and a failed query with 502', async () => {
    expect((await answer('nope', new URLSearchParams(), deps().d)).status).toBe(404);
    const failed = await answer('revenue', new URLSearchParams(), deps([], true).d);
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ error: 'query_failed' });
  });

  it('passes typed values and the probe prefix, and echoes the resolved window', async () => {
    const { d, sql } = deps([{ level: 5, sessions: 2 }]);
    const a = await answer('funnel', new URLSearchParams('run=gen-7&window=60'), d);
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({
      params: { fromMs: NOW - 900_000, toMs: NOW, run: 'gen-7', windowS: 60 },
      data: {
        steps: [
          { sessions: 2 },
          { sessions: 2 },
          { sessions: 2 },
          { sessions: 2 },
          { sessions: 2 },
        ],
      },
    });
    // Values travel as typed parameters, never inside the SQL text.
    expect(sql[0]).toContain('NOT startsWith(run_id, {probe:String}) AND run_id = {run:String}');
    expect(sql[0]).toContain('"probe":"probe-","run":"gen-7"');
    expect(sql[0]).not.toContain("'gen-7'");
  });

  it('uses the last hour before "at" for dead letters and the active window for sessions', async () => {
    const { d } = deps([{ sessions: 3, events: 9 }]);
    const a = await answer('active-sessions', new URLSearchParams('active=60'), d);
    expect(a.body).toMatchObject({
      params: { fromMs: NOW - 60_000, toMs: NOW },
      data: { sessions: 3, events: 9 },
    });
    const dl = await answer('dead-letters', new URLSearchParams(`at=${NOW}`), deps([]).d);
    expect(dl.body).toMatchObject({
      params: { fromMs: NOW - 3_600_000, toMs: NOW },
      data: { reasons: [] },
    });
  });

  it('reports Prometheus being down per row, with a 200', async () => {
    const a = await answer('layers', new URLSearchParams(), deps().d);
    expect(a.status).toBe(200);
    expect((a.body as { data: { rows: { state: string }[] } }).data.rows[0]?.state).toBe('error');
  });
});
