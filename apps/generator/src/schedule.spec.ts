import { Schedule } from './schedule';

jest.setTimeout(60_000);

describe('Schedule', () => {
  it('spaces slots evenly at a steady rate', () => {
    const s = new Schedule({ rate: 2000, rampTo: null, durationMs: null, count: 10 });
    expect([0, 1, 2, 10].map((i) => s.offsetMs(i))).toEqual([0, 0.5, 1, 5]);
    expect(s.totalSlots).toBe(10);
  });

  it('bounds a run by duration, by count, or by whichever comes first', () => {
    expect(
      new Schedule({ rate: 1000, rampTo: null, durationMs: 20_000, count: null }).totalSlots,
    ).toBe(20_000);
    expect(
      new Schedule({ rate: 1000, rampTo: null, durationMs: 20_000, count: 500 }).totalSlots,
    ).toBe(500);
    expect(
      new Schedule({ rate: 1000, rampTo: null, durationMs: null, count: null }).totalSlots,
    ).toBeNull();
    expect(
      new Schedule({ rate: 1000, rampTo: null, durationMs: 20_000, count: 500 }).boundedByCount,
    ).toBe(true);
    expect(
      new Schedule({ rate: 1000, rampTo: null, durationMs: 20_000, count: 50_000 }).boundedByCount,
    ).toBe(false);
    expect(
      new Schedule({ rate: 1000, rampTo: null, durationMs: 20_000, count: null }).boundedByCount,
    ).toBe(false);
  });

  it('ramps linearly: the mean rate decides the total and the slots get denser', () => {
    const s = new Schedule({ rate: 1000, rampTo: 3000, durationMs: 10_000, count: null });
    expect(s.totalSlots).toBe(20_000);
    expect(s.rateAt(0)).toBeCloseTo(1000);
    expect(s.rateAt(5000)).toBeCloseTo(2000);
    expect(s.offsetMs(20_000)).toBeCloseTo(10_000, 6);
    const early = s.offsetMs(101) - s.offsetMs(100);
    const late = s.offsetMs(19_001) - s.offsetMs(19_000);
    expect(early).toBeGreaterThan(late * 2.5);
    // Monotonic, and past the ramp the final rate continues.
    for (let i = 1; i < 20_100; i += 97) expect(s.offsetMs(i)).toBeGreaterThan(s.offsetMs(i - 1));
    expect(s.offsetMs(23_000) - s.offsetMs(20_000)).toBeCloseTo(1000, 6);
  });

  it('ramps down too, and over a count when there is no duration', () => {
    const down = new Schedule({ rate: 4000, rampTo: 1000, durationMs: 6000, count: null });
    expect(down.totalSlots).toBe(15_000);
    const byCount = new Schedule({ rate: 1000, rampTo: 3000, durationMs: null, count: 20_000 });
    expect(byCount.offsetMs(20_000)).toBeCloseTo(10_000, 6);
  });
});
