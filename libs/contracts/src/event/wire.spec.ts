import { decodeEvent, encodeEvent, fingerprintOf, schemaOf, SINGLE_OBJECT_MAGIC } from './wire';
import { NOW, sampleEvent } from '../../test/fixtures';

describe('encodeEvent / decodeEvent', () => {
  it('round-trips a canonical event', () => {
    const event = sampleEvent({ ingest_time: NOW });
    const bytes = encodeEvent(event);
    expect(bytes.subarray(0, 2)).toEqual(SINGLE_OBJECT_MAGIC);
    expect(bytes.subarray(2, 10)).toEqual(fingerprintOf(2));
    expect(decodeEvent(bytes, { ingestTime: NOW })).toEqual({ ok: true, event, version: 2 });
  });

  it('reads v1 data in the canonical shape with device and ingest_time null', () => {
    const event = sampleEvent({ device: 'tablet', ingest_time: NOW });
    const bytes = encodeEvent(event, 1);
    expect(bytes.subarray(2, 10)).toEqual(fingerprintOf(1));
    expect(decodeEvent(bytes, { ingestTime: NOW })).toEqual({
      ok: true,
      event: { ...event, device: null, ingest_time: null },
      version: 1,
    });
  });

  it('gives the parsed .avsc of each version', () => {
    expect(schemaOf(1)).toMatchObject({ type: 'record', name: 'ClickstreamEvent' });
    expect(JSON.stringify(schemaOf(2))).toContain('ingest_time');
    expect(JSON.stringify(schemaOf(1))).not.toContain('ingest_time');
  });
});
