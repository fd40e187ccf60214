/**
 * tools/reconcile-wait's narrowing: while a run catches up, a retry counts only the layers that
 * were not exact (and clickstream.raw); the verdict is always a count of every layer. The script
 * runs from a copy of the repo's layout whose reconciler is a stub that plays a scripted sequence
 * of reports and records how it was called.
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from './support/stack';

const ALL = ['clickstream.raw', 'events.clean', 'clickhouse.clean', 'agg.sessions'];

type Verdict = 'exact' | 'inexact' | 'unknown';
/** One reconciler call: the --layers it must get (null: none, every layer), and the verdicts it reports. */
interface Step {
  layers: string | null;
  verdicts: Record<string, Verdict>;
}

// The stub: takes the next step, checks its --layers, writes the report where --out (or the run
// directory) says, exits 0 exact / 1 inexact / 2 unknown as the reconciler does.
const STUB = `
const fs = require('fs'), path = require('path');
const argv = process.argv.slice(2);
const flag = (f) => { const i = argv.indexOf(f); return i < 0 ? null : argv[i + 1]; };
const steps = JSON.parse(fs.readFileSync(process.env.STUB_STEPS, 'utf8'));
const log = process.env.STUB_CALLS;
const n = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\\n').filter(Boolean).length : 0;
fs.appendFileSync(log, JSON.stringify(argv) + '\\n');
const step = steps[n];
if (!step) { console.error('no step ' + n); process.exit(70); }
const layers = flag('--layers');
if (layers !== step.layers) { console.error('call ' + n + ': --layers ' + layers + ', expected ' + step.layers); process.exit(70); }
const names = layers === null ? ${JSON.stringify(ALL)} : layers.split(',');
const report = { layers: names.map((layer) => ({ layer, verdict: step.verdicts[layer] ?? 'exact' })) };
const out = flag('--out') ?? path.join(flag('--run-dir'), 'reconcile.json');
fs.writeFileSync(out, JSON.stringify(report));
const v = report.layers.map((l) => l.verdict);
console.log('table of call ' + n);
process.exit(v.includes('inexact') ? 1 : v.includes('unknown') ? 2 : 0);
`;

let root: string;
let runDir: string;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'reconcile-wait-'));
  mkdirSync(path.join(root, 'tools/lib'), { recursive: true });
  copyFileSync(
    path.join(REPO_ROOT, 'tools/reconcile-wait'),
    path.join(root, 'tools/reconcile-wait'),
  );
  copyFileSync(path.join(REPO_ROOT, 'tools/lib/common.sh'), path.join(root, 'tools/lib/common.sh'));
  mkdirSync(path.join(root, 'apps/reconciler/dist'), { recursive: true });
  writeFileSync(path.join(root, 'apps/reconciler/dist/main.js'), STUB);
  runDir = path.join(root, 'results/runs/r1');
  mkdirSync(runDir, { recursive: true });
  writeFileSync(path.join(runDir, 'manifest.json'), '{}');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function wait(steps: Step[], maxS: number, env: Record<string, string> = {}) {
  const stepsFile = path.join(root, 'steps.json');
  const calls = path.join(root, 'calls.jsonl');
  writeFileSync(stepsFile, JSON.stringify(steps));
  const r = spawnSync('bash', [path.join(root, 'tools/reconcile-wait'), runDir, String(maxS)], {
    encoding: 'utf8',
    timeout: 60_000,
    env: {
      ...process.env,
      STUB_STEPS: stepsFile,
      STUB_CALLS: calls,
      RECONCILE_WAIT_INTERVAL_S: '0',
      ...env,
    },
  });
  const argvs = (existsSync(calls) ? readFileSync(calls, 'utf8') : '')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as string[]);
  const layers = argvs.map((a) => (a.includes('--layers') ? a[a.indexOf('--layers') + 1] : null));
  return { ...r, layers, argvs };
}

describe('tools/reconcile-wait', () => {
  it('retries only the lagging layers and raw, then counts every layer for the verdict', () => {
    const r = wait(
      [
        { layers: null, verdicts: { 'clickhouse.clean': 'inexact', 'agg.sessions': 'unknown' } },
        {
          layers: 'clickstream.raw,clickhouse.clean,agg.sessions',
          verdicts: { 'agg.sessions': 'unknown' },
        },
        { layers: 'clickstream.raw,agg.sessions', verdicts: {} },
        { layers: null, verdicts: {} },
      ],
      60,
    );
    expect(r.stderr).not.toMatch(/ERROR/);
    expect(r.status).toBe(0);
    expect(r.layers).toEqual([
      null,
      'clickstream.raw,clickhouse.clean,agg.sessions',
      'clickstream.raw,agg.sessions',
      null,
    ]);
    // The partial counts go to their own report; the verdict's report is reconcile.json.
    expect(r.argvs[1]).toEqual(
      expect.arrayContaining(['--out', path.join(runDir, 'reconcile.partial.json')]),
    );
    expect(r.argvs[3]).not.toContain('--out');
    expect(r.stdout).toMatch(/table of call 3/);
    expect(r.stdout).toMatch(/every layer exact after \d+ s of catch-up \(4 reconciliations\)/);
    // Each retry says what it waits for, from the report that narrowed it.
    expect(r.stdout).toMatch(
      /attempt 1 after \d+ s, 2 layer\(s\) not exact yet: clickhouse\.clean inexact, agg\.sessions unknown; retrying/,
    );
    expect(r.stdout).toMatch(
      /attempt 2 after \d+ s, 1 layer\(s\) not exact yet: agg\.sessions unknown; retrying/,
    );
  });

  it('narrows again from the full count when a layer regressed in between', () => {
    const r = wait(
      [
        { layers: null, verdicts: { 'agg.sessions': 'unknown' } },
        { layers: 'clickstream.raw,agg.sessions', verdicts: {} },
        { layers: null, verdicts: { 'events.clean': 'inexact' } },
        { layers: 'clickstream.raw,events.clean', verdicts: {} },
        { layers: null, verdicts: {} },
      ],
      60,
    );
    expect(r.status).toBe(0);
    expect(r.layers).toEqual([
      null,
      'clickstream.raw,agg.sessions',
      null,
      'clickstream.raw,events.clean',
      null,
    ]);
  });

  it('counts every layer at every attempt with RECONCILE_WAIT_NARROW=0', () => {
    const r = wait(
      [
        { layers: null, verdicts: { 'agg.sessions': 'unknown' } },
        { layers: null, verdicts: {} },
      ],
      60,
      { RECONCILE_WAIT_NARROW: '0' },
    );
    expect(r.status).toBe(0);
    expect(r.layers).toEqual([null, null]);
  });

  it('out of time while narrowing, the verdict is still a count of every layer', () => {
    const r = wait(
      [
        { layers: null, verdicts: { 'clickhouse.clean': 'inexact' } },
        { layers: 'clickstream.raw,clickhouse.clean', verdicts: { 'clickhouse.clean': 'inexact' } },
        { layers: null, verdicts: { 'clickhouse.clean': 'inexact' } },
      ],
      // The first count ends well within 3 s; the pause of 4 s puts the second past the deadline.
      3,
      { RECONCILE_WAIT_INTERVAL_S: '4' },
    );
    expect(r.status).toBe(1);
    expect(r.layers).toEqual([null, 'clickstream.raw,clickhouse.clean', null]);
    expect(r.stdout).toMatch(/table of call 2/);
    expect(r.stdout).toMatch(/NOT exact after waiting \d+ s \(3 reconciliations\)/);
  });

  it('refuses a pause that is not a whole number of seconds', () => {
    const r = wait([{ layers: null, verdicts: {} }], 60, { RECONCILE_WAIT_INTERVAL_S: 'soon' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /RECONCILE_WAIT_INTERVAL_S='soon': expected a whole number of seconds/,
    );
    expect(r.argvs).toEqual([]);
  });
});
