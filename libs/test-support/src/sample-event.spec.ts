import { samplePageView } from './sample-event';

describe('samplePageView', () => {
  it('is a page view of the run, with no product, cart or payment fields', () => {
    const e = samplePageView(7, 'run-1');
    expect(e).toMatchObject({
      seq: 7,
      run_id: 'run-1',
      event_type: 'page_view',
      session_id: 'sess-7',
      user_id: null,
      page: '/home',
      product_id: null,
      quantity: null,
      amount_cents: null,
      currency: null,
      device: 'desktop',
      ingest_time: null,
    });
    expect(e.event_id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('gives every event a fresh id', () => {
    expect(samplePageView(1, 'r').event_id).not.toBe(samplePageView(1, 'r').event_id);
  });

  it('takes the overrides over its defaults', () => {
    const e = samplePageView(3, 'r', { event_time: 5, page: '/bench', ingest_time: 6 });
    expect([e.event_time, e.page, e.ingest_time, e.seq]).toEqual([5, '/bench', 6, 3]);
  });
});
