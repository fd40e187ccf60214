import { HEADERS, decodeEvent, isProbeRun, validateEvent } from '@clickstream/contracts';
import { probeEvent, probeRecord, probeRunId } from './event';

describe('probe event', () => {
  it('has a run id that every layer recognises as the probe', () => {
    expect(probeRunId('', 1700000000000)).toBe('probe-1700000000000');
    expect(probeRunId('ci-1', 5)).toBe('probe-ci-1');
    expect(isProbeRun(probeRunId('', 5))).toBe(true);
  });

  it('passes the contract at the front door', () => {
    const e = probeEvent('probe-1', 7, 1_700_000_000_000);
    expect(validateEvent(e, 1_700_000_000_100)).toEqual({ ok: true });
  });

  it('is sent with the generator headers and decodes to itself', () => {
    const e = probeEvent('probe-1', 7, 1_700_000_000_000, '3f0c6a52-8a8e-4c43-9a43-1f3a5f0e2a11');
    const r = probeRecord('clickstream.raw', e);
    expect(r.headers).toEqual({ [HEADERS.seq]: '7', [HEADERS.runId]: 'probe-1' });
    expect(r.key).toBe(e.event_id);
    const decoded = decodeEvent(r.value as Buffer, { ingestTime: e.event_time + 100 });
    expect(decoded.ok && decoded.event).toMatchObject({
      seq: 7,
      run_id: 'probe-1',
      event_time: e.event_time,
    });
  });
});
