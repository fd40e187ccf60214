import { RATIOS } from '../test/helpers';
import { Pacer } from './pacer';
import { Planner } from './planner';
import { Schedule } from './schedule';

const START = 1_800_000_000_000;

function pacer(live: boolean, count: number, ratios = RATIOS): Pacer {
  const schedule = new Schedule({ rate: 1000, rampTo: null, durationMs: null, count });
  const planner = new Planner({
    seed: 1,
    runId: 'pacer-test',
    latenessMs: 5000,
    ratios,
    v1Share: 0,
    sessions: 10,
    maxDuplicateDelayMs: 1000,
  });
  return new Pacer(schedule, planner, START, live);
}

describe('Pacer', () => {
  it('a dry run has every slot due at once, stamped with its virtual time, up to the batch size', () => {
    const p = pacer(false, 10, { ...RATIOS, duplicate: 0 });
    const first = p.due(0, 4);
    expect(first.map((s) => s.seq)).toEqual([0, 1, 2, 3]);
    expect(first.map((s) => s.timestamp)).toEqual([START, START + 1, START + 2, START + 3]);
    expect(p.due(0, 100).map((s) => s.seq)).toEqual([4, 5, 6, 7, 8, 9]);
    expect(p.due(0, 100)).toEqual([]);
    expect(p.done).toBe(true);
    expect(p.lastSendTime).toBe(START + 9);
  });

  it('a live run sends only the slots due by now, stamped with now, and knows its lag', () => {
    const p = pacer(true, 100);
    expect(p.due(START + 2, 100).map((s) => [s.seq, s.timestamp])).toEqual([
      [0, START + 2],
      [1, START + 2],
      [2, START + 2],
    ]);
    expect(p.seq).toBe(3);
    expect(p.lagMs(START + 2)).toBeCloseTo(-1);
    expect(p.lagMs(START + 10)).toBeCloseTo(7);
    expect(p.done).toBe(false);
  });

  it('after the last slot it drains pending duplicates, then is done', () => {
    const p = pacer(false, 200, { ...RATIOS, duplicate: 0.2 });
    const all = p.due(0, 10_000);
    expect(p.done).toBe(true);
    expect(all.length).toBeGreaterThanOrEqual(200);
    expect(all.map((s) => s.seq)).toEqual(all.map((_, i) => i));
  });
});
