import {
  FRAMES_CONTENT_TYPE,
  decodeEvent,
  encodeEvent,
  encodeFrames,
} from '@clickstream/contracts';
import { jsonRecord, mediaType, parseBody, parseJson } from './records';
import { sampleEvent } from './testing';

const limits = { maxEvents: 3, maxRecordBytes: 2048 };

describe('parseBody: JSON', () => {
  it('encodes each event in the contract shape with its key and the generator headers', () => {
    const e = sampleEvent(5);
    const r = parseBody(
      'application/json; charset=utf-8',
      Buffer.from(JSON.stringify([e])),
      limits,
    );
    expect(r).toEqual({
      ok: true,
      records: [
        {
          key: 'session-1',
          value: encodeEvent(e),
          headers: { 'cs-seq': '5', 'cs-run-id': 'run-1' },
        },
      ],
    });
  });

  it('accepts one object, and text/plain (sendBeacon) by sniffing', () => {
    const e = sampleEvent(1);
    const one = parseBody('text/plain;charset=UTF-8', Buffer.from(JSON.stringify(e)), limits);
    expect(one.ok && one.records.map((x) => x.value)).toEqual([encodeEvent(e)]);
  });

  it('fills left-out nullable fields and derives the same event_id for the same content', () => {
    const { event_id: _id, user_id: _u, device: _d, ingest_time: _i, ...partial } = sampleEvent(2);
    const a = jsonRecord(partial);
    const b = jsonRecord({ ...partial });
    expect(a.value).toEqual(b.value);
    const decoded = decodeEvent(a.value, { ingestTime: 1_764_000_000_000 });
    expect(decoded.ok).toBe(true);
    if (decoded.ok)
      expect(decoded.event.event_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab]/);
    const other = jsonRecord({ ...partial, seq: 3 });
    expect(other.value).not.toEqual(a.value);
  });

  it('encodes the schema fields only: an undeclared field is left out, as the encoder ignores it', () => {
    const e = sampleEvent(4, { device: 'desktop', ingest_time: 1_764_000_000_100 });
    const r = jsonRecord({ ...e, referrer: 'https://example.com/', nested: { a: 1 } });
    expect(r.value).toEqual(encodeEvent(e));
    const decoded = decodeEvent(r.value, { ingestTime: e.event_time });
    expect(decoded.ok && decoded.event).toEqual(e);
  });

  it('carries an event that breaks a contract rule, encoded (the gatekeeper sends it to the DLQ)', () => {
    const e = sampleEvent(3, {
      event_type: 'payment_succeeded',
      amount_cents: -5,
      currency: 'EUR',
    });
    const r = jsonRecord(e);
    expect(r.value).toEqual(encodeEvent(e));
    expect(decodeEvent(r.value, { ingestTime: e.event_time })).toMatchObject({
      ok: false,
      reason: 'negative_amount',
    });
  });

  it('carries what it cannot encode as its JSON text, unchanged, with the labels it can read', () => {
    const bad = { seq: 9, run_id: 'run-1', event_type: 'page_view', event_time: 'yesterday' };
    expect(jsonRecord(bad)).toEqual({
      key: null,
      value: Buffer.from(JSON.stringify(bad)),
      headers: { 'cs-seq': '9', 'cs-run-id': 'run-1' },
    });
    expect(jsonRecord(42)).toEqual({ key: null, value: Buffer.from('42'), headers: {} });
  });

  it('refuses bad JSON, an empty array, too many events and an oversized event, naming each', () => {
    expect(parseBody('application/json', Buffer.from('[{'), limits)).toMatchObject({
      ok: false,
      refusal: 'bad_json',
    });
    expect(parseJson('[]', limits)).toMatchObject({ ok: false, refusal: 'no_events' });
    const four = JSON.stringify([1, 2, 3, 4].map((s) => sampleEvent(s)));
    expect(parseJson(four, limits)).toEqual({
      ok: false,
      refusal: 'too_many_events',
      error: '4 events in one request; at most 3',
    });
    const big = JSON.stringify([sampleEvent(1, { page: 'x'.repeat(3000) })]);
    expect(parseJson(big, limits)).toMatchObject({ ok: false, refusal: 'body_too_large' });
  });
});

describe('parseBody: Avro and frames', () => {
  it('splits many single-object records and labels each from its payload', () => {
    const a = encodeEvent(sampleEvent(1));
    const b = encodeEvent(sampleEvent(2), 1);
    const r = parseBody('application/avro', Buffer.concat([a, b]), limits);
    expect(r).toEqual({
      ok: true,
      records: [
        { key: 'session-1', value: a, headers: { 'cs-seq': '1', 'cs-run-id': 'run-1' } },
        { key: 'session-1', value: b, headers: { 'cs-seq': '2', 'cs-run-id': 'run-1' } },
      ],
    });
  });

  it('carries an undelimitable Avro body unchanged, with the labels of the request headers', () => {
    const junk = Buffer.from([0xc3, 0x01, 9, 9, 9, 9, 9, 9, 9, 9, 1]);
    expect(parseBody('avro/binary', junk, limits, { seq: '17', runId: 'r' })).toEqual({
      ok: true,
      records: [{ key: null, value: junk, headers: { 'cs-seq': '17', 'cs-run-id': 'r' } }],
    });
    expect(parseBody('avro/binary', junk, limits, { seq: '-1' })).toMatchObject({
      ok: false,
      refusal: 'bad_header',
    });
  });

  it('refuses a body that is neither JSON nor Avro, and unknown media types', () => {
    expect(parseBody('', Buffer.from('hello'), limits)).toMatchObject({
      ok: false,
      refusal: 'not_json_or_avro',
    });
    expect(parseBody('application/avro', Buffer.from('{}'), limits)).toMatchObject({
      ok: false,
      refusal: 'not_json_or_avro',
    });
    expect(parseBody('image/png', Buffer.from('{}'), limits)).toMatchObject({
      ok: false,
      refusal: 'unsupported_media_type',
    });
    expect(parseBody('application/json', Buffer.alloc(0), limits)).toMatchObject({
      ok: false,
      refusal: 'no_events',
    });
  });

  it('refuses more Avro records than the limit', () => {
    const a = encodeEvent(sampleEvent(1));
    expect(parseBody('application/avro', Buffer.concat([a, a, a, a]), limits)).toMatchObject({
      ok: false,
      refusal: 'too_many_events',
    });
  });

  it('keeps frame keys and headers as sent (a duplicate keeps its own seq), poison included', () => {
    const v = encodeEvent(sampleEvent(1));
    const body = encodeFrames([
      { key: 'k', headers: { 'cs-seq': '40', 'cs-run-id': 'r' }, value: v },
      { key: null, headers: { 'cs-seq': '41', 'cs-run-id': 'r' }, value: Buffer.from('poison') },
    ]);
    expect(parseBody(FRAMES_CONTENT_TYPE, body, limits)).toEqual({
      ok: true,
      records: [
        { key: 'k', headers: { 'cs-seq': '40', 'cs-run-id': 'r' }, value: v },
        { key: null, headers: { 'cs-seq': '41', 'cs-run-id': 'r' }, value: Buffer.from('poison') },
      ],
    });
  });

  it('refuses frames with other headers, broken framing, or too many', () => {
    const v = Buffer.from('x');
    const stray = encodeFrames([{ key: null, headers: { 'cs-reason': 'x' }, value: v }]);
    expect(parseBody(FRAMES_CONTENT_TYPE, stray, limits)).toMatchObject({
      ok: false,
      refusal: 'bad_header',
    });
    expect(parseBody(FRAMES_CONTENT_TYPE, Buffer.from([0, 0, 0, 9]), limits)).toMatchObject({
      ok: false,
      refusal: 'bad_frames',
    });
    const four = encodeFrames([1, 2, 3, 4].map(() => ({ key: null, headers: {}, value: v })));
    expect(parseBody(FRAMES_CONTENT_TYPE, four, limits)).toMatchObject({
      ok: false,
      refusal: 'too_many_events',
    });
  });

  it('reads the media type without parameters', () => {
    expect(mediaType('Application/JSON; charset=utf-8')).toBe('application/json');
    expect(mediaType(undefined)).toBe('');
  });
});
