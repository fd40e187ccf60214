import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { generateDocs } from './generate';
import { BEGIN, END, splice } from './markdown';

function writeRun(
  results: string,
  name: string,
  stamp: string,
  experiment: object,
  timeline: object[],
) {
  const dir = path.join(results, 'experiments', name, stamp);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'experiment.json'), JSON.stringify(experiment));
  fs.writeFileSync(
    path.join(dir, 'timeline.jsonl'),
    timeline.map((r) => JSON.stringify(r)).join('\n'),
  );
}

const figures = (verdict: string) => ({
  write_pause_ms: 1234,
  write_pause_from_fault_ms: 10,
  acked_sends: 100,
  phases: [],
  freshness: {
    valid: { before: { p50: 1, p99: 2 }, during: { p50: 3, p99: 40 }, after: { p50: 1, p99: 2 } },
    clean: { before: { p50: 2, p99: 3 }, during: { p50: 5, p99: 60 }, after: { p50: 2, p99: 3 } },
  },
  back_under_slo_s: 12,
  max_age_during: { ageS: 61, layer: 'clean' },
  page: { toPageMs: 27_400, alertname: 'ProbeStalled', toResolvedMs: 30_000 },
  reconcile: {
    verdict,
    layers: { 'clickstream.raw': 'exact', 'agg.windows': verdict },
    evidence:
      verdict === 'exact'
        ? {}
        : { 'agg.windows': { missing: 0, duplicated: 0, unexpected: 0, differing: 3 } },
  },
});

describe('generateDocs', () => {
  let root: string;
  beforeEach(() => (root = fs.mkdtempSync(path.join(os.tmpdir(), 'experiment-docs-'))));
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('writes a section saying nothing has run when results are empty, keeping the rest of the doc', async () => {
    const docsFile = path.join(root, 'docs', 'MEASUREMENTS.md');
    fs.mkdirSync(path.dirname(docsFile));
    fs.writeFileSync(docsFile, '# Measurements\n\nhand-written\n');
    await generateDocs({ resultsDir: path.join(root, 'results'), repoRoot: root, docsFile });
    const doc = fs.readFileSync(docsFile, 'utf8');
    expect(doc).toContain('hand-written');
    expect(doc).toContain('Not run yet: `load-ladder`');
  });

  it('tables every run, explains the inexact one and renders the plots as SVG', async () => {
    const results = path.join(root, 'results');
    const t0 = 1_800_000_000;
    const timeline = Array.from({ length: 60 }, (_, i) => ({
      t: t0 + i,
      acked: 10,
      age_s: { valid: i % 5, clean: i > 20 && i < 40 ? i : 3 },
    }));
    for (const [stamp, verdict] of [
      ['20261201T000000Z', 'exact'],
      ['20261201T001000Z', 'inexact'],
    ] as const)
      writeRun(
        results,
        'loader-kill',
        stamp,
        {
          status: 'done',
          started_at: '2026-12-01T00:00:00.000Z',
          seed: 7,
          settings: { rate: 300 },
          fault: { injectedAtMs: (t0 + 20) * 1000 },
          figures: figures(verdict),
        },
        timeline,
      );
    writeRun(
      results,
      'load-ladder',
      '20261201T002000Z',
      {
        status: 'done',
        started_at: '2026-12-01T00:20:00Z',
        seed: 1,
        settings: {},
        rungs: [1000, 2000].map((rate) => ({
          rate,
          run_id: `r${rate}`,
          acked_sends: rate * 60,
          achieved_rate: rate,
          write_pause_ms: 20,
          freshness: { valid: { p50: 1, p99: rate / 500 }, clean: { p50: 2, p99: rate / 200 } },
          max_age_s: 9,
          reconcile: figures('exact').reconcile,
          stop: rate === 2000 ? 'behind: clean p99 10 s' : null,
        })),
      },
      [],
    );
    const docsFile = path.join(root, 'docs', 'MEASUREMENTS.md');
    const out = await generateDocs({ resultsDir: results, repoRoot: root, docsFile });
    const doc = fs.readFileSync(docsFile, 'utf8');
    expect(out.sections).toBe(2);
    expect(doc).toContain('### loader-kill');
    expect(doc).toMatch(/\| 1\.2 s +\|/); // Prettier pads the columns
    expect(doc).toContain('27.4 s (ProbeStalled)');
    expect(doc).toMatch(
      /agg\.windows \(inexact\): missing 0, duplicated 0, unexpected 0, differing rows 3/,
    );
    expect(doc).toContain('behind: clean p99 10 s');
    expect(doc).toContain(
      '![loader-kill: freshness around the fault](experiments/loader-kill.svg)',
    );
    for (const name of ['loader-kill', 'load-ladder']) {
      const svg = fs.readFileSync(path.join(root, 'docs', 'experiments', `${name}.svg`), 'utf8');
      expect(svg.startsWith('<svg')).toBe(true);
      expect(svg).toContain('clean');
    }
    // Regenerating replaces the section instead of adding a second one.
    await generateDocs({ resultsDir: results, repoRoot: root, docsFile });
    const again = fs.readFileSync(docsFile, 'utf8');
    expect(again.split('### loader-kill')).toHaveLength(2);
  });
});

describe('splice', () => {
  it('replaces only the text between the markers', () => {
    const doc = `a\n${BEGIN}\nold\n${END}\nb\n`;
    expect(splice(doc, `${BEGIN}\nnew\n${END}`)).toBe(`a\n${BEGIN}\nnew\n${END}\nb\n`);
  });
});
