import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { RunManifest } from '@clickstream/contracts';
import { readManifest, runPaths, writeManifest } from './index';

jest.setTimeout(60_000);

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifest-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const manifest: RunManifest = {
  run_id: 'run-1',
  seed: 42,
  generator_version: '0.1.0',
  dry_run: true,
  target_rate: 1000,
  ramp_to_rate: null,
  duration_ms: null,
  total_events: 10,
  lateness_ms: 5000,
  fault_ratios: {
    duplicate: 0.02,
    out_of_order: 0.05,
    late: 0.01,
    poison_random_bytes: 0.001,
    poison_truncated: 0.001,
    poison_unknown_fingerprint: 0.001,
    poison_bad_magic: 0.001,
    poison_contract: 0.002,
  },
  topic: 'clickstream.raw',
  bootstrap: null,
  started_at: 1_764_000_000_000,
  ended_at: 1_764_000_000_010,
  achieved_rate: 1000,
  counts: {
    sends: 10,
    acked: 0,
    failed: 0,
    not_sent: 10,
    by_fault: {
      none: 10,
      duplicate: 0,
      out_of_order: 0,
      late: 0,
      poison_random_bytes: 0,
      poison_truncated: 0,
      poison_unknown_fingerprint: 0,
      poison_bad_magic: 0,
      poison_contract: 0,
      lateness_edge: 0,
    },
  },
  ledger_file: 'ledger.arrow',
};

describe('run manifest', () => {
  it('round-trips and leaves no temp file', () => {
    const file = path.join(dir, 'runs', 'run-1', 'manifest.json');
    writeManifest(file, manifest);
    expect(readManifest(file)).toEqual(manifest);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['manifest.json']);
  });

  it('refuses to write an invalid manifest, naming the field', () => {
    expect(() => writeManifest(path.join(dir, 'm.json'), { ...manifest, target_rate: -1 })).toThrow(
      /target_rate/,
    );
  });

  it('reading an invalid or missing manifest names the file and the field', () => {
    const file = path.join(dir, 'm.json');
    fs.writeFileSync(
      file,
      JSON.stringify({ ...manifest, counts: { ...manifest.counts, sends: 'ten' } }),
    );
    expect(() => readManifest(file)).toThrow(/m\.json.*counts\.sends/);
    expect(() => readManifest(path.join(dir, 'none.json'))).toThrow(/cannot read run manifest/);
  });
});

describe('runPaths', () => {
  it('lays a run out under results/runs/<run-id>', () => {
    expect(runPaths('results', 'gen-42')).toEqual({
      dir: path.join('results', 'runs', 'gen-42'),
      ledger: path.join('results', 'runs', 'gen-42', 'ledger.arrows'),
      manifest: path.join('results', 'runs', 'gen-42', 'manifest.json'),
    });
  });

  it('refuses run ids that are not safe directory names', () => {
    expect(() => runPaths('results', '../etc')).toThrow(/run id/);
    expect(() => runPaths('results', '')).toThrow(/run id/);
  });
});
