import { HEADERS, type ClickEvent } from '@clickstream/contracts';
import { toDlqRow, toEventRow, toRejectRow } from './rows';

const meta = { topic: 'events.valid', partition: 3, offset: 42, timestamp: 1_700_000_000_123 };
const event: ClickEvent = {
  event_id: '6f1c2d3e-0000-4000-8000-000000000001',
  seq: 17,
  run_id: 'run-a',
  event_type: 'add_to_cart',
  event_time: 1_700_000_000_000,
  session_id: 's-1',
  user_id: null,
  page: '/p/1',
  product_id: 'p-1',
  quantity: 2,
  amount_cents: null,
  currency: null,
  device: 'mobile',
  ingest_time: 1_700_000_000_100,
};

describe('toEventRow', () => {
  it('copies every event field and adds the Kafka position and inserted_at', () => {
    const row = toEventRow(event, meta, 99);
    expect(row).toEqual({
      ...event,
      kafka_topic: 'events.valid',
      kafka_partition: 3,
      kafka_offset: 42,
      kafka_timestamp: 1_700_000_000_123,
      inserted_at: 99,
    });
  });
});

describe('toDlqRow', () => {
  it('reads reason, detail, seq and source from the headers and keeps the bytes as base64', () => {
    const value = Buffer.from([0xc3, 0x01, 0xff, 0x00]);
    const row = toDlqRow(
      {
        value,
        headers: {
          [HEADERS.seq]: Buffer.from('123'),
          [HEADERS.runId]: Buffer.from('run-a'),
          [HEADERS.reason]: Buffer.from('unknown_fingerprint'),
          [HEADERS.detail]: 'fingerprint ff00',
          [HEADERS.sourceTopic]: 'clickstream.raw',
          [HEADERS.sourcePartition]: '5',
          [HEADERS.sourceOffset]: Buffer.from('9001'),
        },
      },
      meta,
      7,
    );
    expect(row).toMatchObject({
      run_id: 'run-a',
      seq: 123,
      reason: 'unknown_fingerprint',
      detail: 'fingerprint ff00',
    });
    expect(row).toMatchObject({
      source_topic: 'clickstream.raw',
      source_partition: 5,
      source_offset: 9001,
    });
    expect(Buffer.from(row.value_base64, 'base64')).toEqual(value);
    expect(row).toMatchObject({
      value_bytes: 4,
      value_is_null: 0,
      kafka_offset: 42,
      inserted_at: 7,
    });
  });

  it('uses -1 and empty strings for absent or garbled headers, and marks a null value', () => {
    const row = toDlqRow(
      { value: null, headers: { [HEADERS.seq]: 'x1', [HEADERS.sourcePartition]: '1e3' } },
      meta,
      7,
    );
    expect(row).toMatchObject({
      run_id: '',
      seq: -1,
      reason: '',
      source_partition: -1,
      source_offset: -1,
    });
    expect(row).toMatchObject({ value_base64: '', value_bytes: 0, value_is_null: 1 });
  });
});

describe('toRejectRow', () => {
  it('keeps the reason, the bytes and whatever the headers say', () => {
    const row = toRejectRow(
      { value: Buffer.from('zz'), headers: { [HEADERS.seq]: '5' } },
      meta,
      { reason: 'bad_magic', detail: 'd' },
      1,
    );
    expect(row).toEqual({
      kafka_topic: 'events.valid',
      kafka_partition: 3,
      kafka_offset: 42,
      kafka_timestamp: 1_700_000_000_123,
      run_id: '',
      seq: 5,
      reason: 'bad_magic',
      detail: 'd',
      value_base64: Buffer.from('zz').toString('base64'),
      inserted_at: 1,
    });
  });
});

describe('toEventRow seq', () => {
  it('takes the send seq from the header over the payload seq (duplicates repeat the payload)', () => {
    const { toEventRow } = jest.requireActual<typeof import('./rows')>('./rows');
    const event = {
      event_id: '3f1c1f8e-5a4b-4c39-9d39-2a0f7d4d6a11',
      seq: 10,
      run_id: 'r',
      event_type: 'page_view' as const,
      event_time: 1,
      session_id: 's',
      user_id: null,
      page: '/',
      product_id: null,
      quantity: null,
      amount_cents: null,
      currency: null,
      device: null,
      ingest_time: 2,
    };
    const meta = { topic: 't', partition: 0, offset: 5, timestamp: 2 };
    expect(toEventRow(event, { ...meta, headerSeq: 99 }, 3).seq).toBe(99);
    expect(toEventRow(event, { ...meta, headerSeq: null }, 3).seq).toBe(10);
    expect(toEventRow(event, meta, 3).seq).toBe(10);
  });
});
