import { toSessionRow, toWindowRow } from './aggregates';

const meta = { topic: 'agg.windows', partition: 2, offset: 9, timestamp: 1234 };

describe('aggregate row mappers', () => {
  it('maps a window emission with its Kafka position and booleans as 0/1', () => {
    expect(
      toWindowRow(
        {
          run_id: 'r',
          window_start: 10_000,
          window_end: 20_000,
          event_type: 'add_to_cart',
          event_count: 2,
          amount_cents_sum: 300,
          distinct_sessions: 1,
          version: 3,
          is_final: true,
          emitted_at: 25_000,
        },
        meta,
        99,
      ),
    ).toEqual({
      run_id: 'r',
      window_start: 10_000,
      window_end: 20_000,
      event_type: 'add_to_cart',
      event_count: 2,
      amount_cents_sum: 300,
      distinct_sessions: 1,
      version: 3,
      is_final: 1,
      emitted_at: 25_000,
      kafka_partition: 2,
      kafka_offset: 9,
      kafka_timestamp: 1234,
      inserted_at: 99,
    });
  });

  it('maps a session emission, retraction and conversion flags included', () => {
    const row = toSessionRow(
      {
        run_id: 'r',
        session_id: 's',
        session_start: 1,
        session_end: 2,
        event_count: 2,
        revenue_cents: 0,
        converted: false,
        version: 1,
        is_final: false,
        retracted: true,
        emitted_at: 3,
      },
      meta,
      99,
    );
    expect(row).toMatchObject({ converted: 0, is_final: 0, retracted: 1, version: 1 });
  });
});
