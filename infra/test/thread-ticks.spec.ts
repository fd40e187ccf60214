/**
 * tools/lib/thread_ticks.py, which tools/bench-stack profile reads each process's threads with: `top` groups
 * a pool's threads under one name, and `jit` counts the JVMs' JIT compiler threads alone, so that a
 * profile taken while the JVMs still compile says so. Fed with two made-up snapshots of /proc.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { REPO_ROOT } from './support/stack';

// Snapshots as `thread_ticks.py snapshot` writes them: {process: {tid: [thread name, ticks]}}. Ticks are in
// units of one second of one core (the script below multiplies by the kernel's CLK_TCK), over a 10 s window.
const BEFORE = {
  'kafka-1': {
    '1': ['data-plane-kafk', 5],
    '2': ['data-plane-kafk', 5],
    '3': ['C2 CompilerThre', 10],
    '4': ['C1 CompilerThre', 2],
  },
  loader: { '9': ['node', 1] },
};
const AFTER = {
  'kafka-1': {
    '1': ['data-plane-kafk', 6], // +1
    '2': ['data-plane-kafk', 7], // +2, the same pool
    '3': ['C2 CompilerThre', 13], // +3
    '4': ['C1 CompilerThre', 2], // idle
    '5': ['C2 CompilerThre', 1], // started inside the window: all of its ticks count
    '6': ['Compiler-notes', 5], // a name like a compiler's that is not one of HotSpot's
  },
  loader: { '9': ['node', 3] },
};

const SCRIPT = `
import json, os, sys
sys.path.insert(0, sys.argv[1])
from thread_ticks import top, jit
hz = os.sysconf("SC_CLK_TCK")
scale = lambda snap: {p: {t: [n, v * hz] for t, (n, v) in ts.items()} for p, ts in snap.items()}
before, after = (scale(json.loads(a)) for a in sys.argv[2:4])
print(json.dumps({"top": top(before, after, 10.0), "jit": jit(before, after, 10.0)}))
`;

function run(): {
  top: Record<string, { thread: string; cores: number }[]>;
  jit: Record<string, number>;
} {
  const r = spawnSync(
    'python3',
    [
      '-c',
      SCRIPT,
      path.join(REPO_ROOT, 'tools/lib'),
      JSON.stringify(BEFORE),
      JSON.stringify(AFTER),
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`thread_ticks.py failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

describe('thread_ticks.py', () => {
  const out = run();

  it('counts only HotSpot compiler threads as JIT, new ones in full, and leaves out processes without any', () => {
    expect(out.jit).toEqual({ 'kafka-1': 0.4 }); // (3 + 0 + 1) s over 10 s; not Compiler-notes, not the loader
  });

  it('groups a pool of threads under one name and ranks the groups', () => {
    expect(out.top['kafka-1']).toEqual([
      { thread: 'Compiler-notes', cores: 0.5 },
      { thread: 'C2 CompilerThre', cores: 0.4 },
      { thread: 'data-plane-kafk', cores: 0.3 },
    ]);
    expect(out.top.loader).toEqual([{ thread: 'node', cores: 0.2 }]);
  });
});
