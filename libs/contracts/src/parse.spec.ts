import { parseLedgerLine, parseLedgerRow, parseReport, parseRunManifest } from './parse';
import { FAULT_KINDS } from './ledger/ledger';
import { layerReport, ledgerRow, manifest, report } from '../test/rows';

describe('ledger rows', () => {
  it('accepts a valid send, a poison send and a failed send', () => {
    expect(parseLedgerRow(ledgerRow())).toEqual({ ok: true, value: ledgerRow() });
    const poison = ledgerRow({
      event_id: null,
      event_type: null,
      session_id: null,
      key: null,
      event_time: null,
      schema_version: null,
      fault: 'poison_random_bytes',
      expected_fate: 'poison',
      expected_reason: 'bad_magic',
      expected_timeliness: null,
    });
    expect(parseLedgerRow(poison).ok).toBe(true);
    const failed = ledgerRow({
      delivery: 'failed',
      partition: null,
      offset: null,
      delivery_error: 'Local: Message timed out',
    });
    expect(parseLedgerRow(failed).ok).toBe(true);
  });

  it.each<[string, Record<string, unknown>]>([
    ['seq', { seq: -1 }],
    ['seq', { seq: 1.5 }],
    ['run_id', { run_id: '' }],
    ['fault', { fault: 'gremlins' }],
    ['expected_reason', { expected_reason: 'because' }],
    ['event_type', { event_type: 'refund' }],
    ['delivery', { delivery: 'maybe' }],
    ['send_time', { send_time: undefined }],
  ])('names %s when it is bad', (key, overrides) => {
    const result = parseLedgerRow({ ...ledgerRow(), ...overrides });
    expect(result).toEqual({ ok: false, error: expect.stringContaining(`${key}: `) });
  });

  it('parses a JSON line and rejects a line that is not JSON', () => {
    expect(parseLedgerLine(JSON.stringify(ledgerRow()))).toEqual({ ok: true, value: ledgerRow() });
    expect(parseLedgerLine('{"seq":')).toEqual({
      ok: false,
      error: expect.stringContaining('not JSON'),
    });
    expect(parseLedgerLine('')).toEqual({ ok: false, error: expect.stringContaining('not JSON') });
  });
});

describe('run manifest', () => {
  it('accepts a valid manifest and survives JSON', () => {
    expect(parseRunManifest(JSON.parse(JSON.stringify(manifest())))).toEqual({
      ok: true,
      value: manifest(),
    });
  });

  it.each<[string, Record<string, unknown>]>([
    ['fault_ratios.late', { fault_ratios: { ...manifest().fault_ratios, late: 1.5 } }],
    ['target_rate', { target_rate: 0 }],
    ['dry_run', { dry_run: 'no' }],
    ['counts.by_fault.duplicate', { counts: { ...manifest().counts, by_fault: { none: 1 } } }],
  ])('names %s when it is bad', (key, overrides) => {
    expect(parseRunManifest({ ...manifest(), ...overrides })).toEqual({
      ok: false,
      error: expect.stringContaining(`${key}: `),
    });
  });

  it('counts every fault kind (zod 4 records over an enum are exhaustive)', () => {
    expect(Object.keys(manifest().counts.by_fault).sort()).toEqual([...FAULT_KINDS].sort());
  });
});

describe('reconciliation report', () => {
  it('accepts a valid report, and the empty one', () => {
    expect(parseReport(report())).toEqual({ ok: true, value: report() });
    expect(parseReport(report({ ledger_rows: 0, layers: [], verdict: 'unknown' })).ok).toBe(true);
  });

  it.each<[string, Record<string, unknown>]>([
    ['verdict', { verdict: 'fine' }],
    ['layers.0.layer', { layers: [layerReport({ layer: 'kafka' as never })] }],
    ['layers.0.missing.count', { layers: [layerReport({ missing: { count: -1, examples: [] } })] }],
    [
      'layers.0.missing.examples',
      {
        layers: [
          layerReport({
            missing: { count: 30, examples: Array.from({ length: 21 }, (_, i) => i) },
          }),
        ],
      },
    ],
    ['layers.1.read_ms', { layers: [layerReport(), { ...layerReport(), read_ms: undefined }] }],
  ])('names %s when it is bad', (key, overrides) => {
    expect(parseReport({ ...report(), ...overrides })).toEqual({
      ok: false,
      error: expect.stringContaining(`${key}: `),
    });
  });

  it('rejects what is not an object', () => {
    expect(parseReport(null)).toEqual({ ok: false, error: expect.stringContaining('(root): ') });
  });
});
