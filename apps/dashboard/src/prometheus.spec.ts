import { LAYER_QUERIES, readLayers, valueOf, type Fetch } from './prometheus';

describe('layers from Prometheus', () => {
  it('reads a number, and no series or NaN as no data (never zero)', () => {
    expect(
      valueOf({
        status: 'success',
        data: { resultType: 'vector', result: [{ value: [1, '2.5'] }] },
      }),
    ).toEqual({ state: 'ok', value: 2.5 });
    expect(valueOf({ status: 'success', data: { resultType: 'vector', result: [] } })).toEqual({
      state: 'no_data',
    });
    expect(
      valueOf({
        status: 'success',
        data: { resultType: 'vector', result: [{ value: [1, 'NaN'] }] },
      }),
    ).toEqual({ state: 'no_data' });
    expect(valueOf({ status: 'error', error: 'parse error' })).toEqual({
      state: 'error',
      detail: 'parse error',
    });
  });

  it('marks a failed request as an error per row and never throws', async () => {
    const down: Fetch = () => Promise.reject(new Error('ECONNREFUSED'));
    const rows = await readLayers('http://127.0.0.1:1', 0, 100, down);
    expect(rows).toHaveLength(LAYER_QUERIES.length);
    expect(rows.every((r) => r.state === 'error')).toBe(true);
  });

  it('asks for each row at the given instant', async () => {
    const urls: string[] = [];
    const ok: Fetch = (url) => {
      urls.push(url);
      return Promise.resolve({
        ok: true,
        status: 200,
        json: () =>
          Promise.resolve({ status: 'success', data: { resultType: 'vector', result: [] } }),
      });
    };
    await readLayers('http://p:9090/', 1_000_500, 100, ok);
    expect(urls[0]).toMatch(/^http:\/\/p:9090\/api\/v1\/query\?query=.*&time=1000\.500$/);
  });
});
