import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { decodeEvent } from '@clickstream/contracts';
import { readLedgerSync, readManifest } from '@clickstream/ledger';
import { capturingSink, options, silentLogger } from '../test/helpers';
import { run, type RunDeps } from './run';
import type { SinkOutcome } from './sink';

jest.setTimeout(60_000);

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'generator-run-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A wall clock that only moves when the generator sleeps (or when a test moves it). */
function fakeTime(start: number): {
  clock: () => number;
  sleep: (ms: number) => Promise<void>;
  advance: (ms: number) => void;
} {
  let t = start;
  return {
    clock: () => t,
    sleep: (ms) => {
      t += ms;
      return Promise.resolve();
    },
    advance: (ms) => {
      t += ms;
    },
  };
}

const acked = (i: number): SinkOutcome => ({
  delivery: 'acked',
  partition: i % 6,
  offset: i,
  error: null,
});

describe('a live run', () => {
  it('paces sends on the wall clock and stamps each record with its send time', async () => {
    const start = 1_800_000_000_000;
    const time = fakeTime(start);
    const sink = capturingSink(true, (_, i) => acked(i));
    const summary = await run({
      options: options({ resultsDir: dir, startTime: start, count: 3000, rate: 1000 }),
      sink,
      logger: silentLogger,
      ...time,
    });
    const rows = readLedgerSync(summary.ledger);
    expect(rows).toHaveLength(3000);
    expect(summary.acked).toBe(3000);
    // Slot i is due i ms after the start at 1000/s; it is sent once due and not much later.
    const offSchedule = rows.filter(
      (r) => r.send_time < start + r.seq || r.send_time > start + r.seq + 60,
    );
    expect(offSchedule.map((r) => [r.seq, r.send_time - start])).toEqual([]);
    expect(sink.records.every((rec, i) => rec.timestamp === rows[i]!.send_time)).toBe(true);
    for (const [i, rec] of sink.records.entries()) {
      const res = decodeEvent(rec.value, { ingestTime: rec.timestamp });
      const row = rows[i]!;
      expect(res.ok ? 'valid' : res.reason).toBe(
        row.expected_fate === 'valid' ? 'valid' : row.expected_reason,
      );
    }
    expect(
      rows.every((r) => r.delivery === 'acked' && r.partition === r.seq % 6 && r.offset === r.seq),
    ).toBe(true);
    expect(summary.fell_behind).toBe(false);
  });

  it('records sends that finally failed as failed, with the error, and counts them in the manifest', async () => {
    const time = fakeTime(1_800_000_000_000);
    const sink = capturingSink(true, (_, i) =>
      i % 10 === 3
        ? { delivery: 'failed', partition: null, offset: null, error: 'Local: Message timed out' }
        : acked(i),
    );
    const summary = await run({
      options: options({ resultsDir: dir, startTime: time.clock(), count: 1000 }),
      sink,
      logger: silentLogger,
      ...time,
    });
    const rows = readLedgerSync(summary.ledger);
    const failed = rows.filter((r) => r.delivery === 'failed');
    expect(failed.map((r) => r.seq)).toEqual(
      rows.filter((r) => r.seq % 10 === 3).map((r) => r.seq),
    );
    expect(
      failed.every((r) => r.delivery_error === 'Local: Message timed out' && r.offset === null),
    ).toBe(true);
    const m = readManifest(summary.manifest);
    expect([m.counts.sends, m.counts.acked, m.counts.failed]).toEqual([1000, 900, 100]);
  });

  it('books every record of a sink call that rejects as failed, never dropping one', async () => {
    const time = fakeTime(1_800_000_000_000);
    const inner = capturingSink(true, (_, i) => acked(i));
    let calls = 0;
    const sink = {
      ...inner,
      send: (batch: Parameters<typeof inner.send>[0]) =>
        ++calls === 2 ? Promise.reject(new Error('boom')) : inner.send(batch),
    };
    const summary = await run({
      options: options({ resultsDir: dir, startTime: time.clock(), count: 2000 }),
      sink,
      logger: silentLogger,
      ...time,
    });
    const rows = readLedgerSync(summary.ledger);
    expect(rows).toHaveLength(2000);
    const failed = rows.filter((r) => r.delivery === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((r) => r.delivery_error === 'sink failed: boom')).toBe(true);
    expect(summary.failed + summary.acked).toBe(2000);
  });

  it('stops on abort: no new sends, and the ledger holds exactly what was sent', async () => {
    const time = fakeTime(1_800_000_000_000);
    const stop = new AbortController();
    const sink = capturingSink(true, (_, i) => {
      if (i === 1234) stop.abort();
      return acked(i);
    });
    const deps: RunDeps = {
      options: options({ resultsDir: dir, startTime: time.clock(), count: 10_000 }),
      sink,
      logger: silentLogger,
      ...time,
      signal: stop.signal,
    };
    const summary = await run(deps);
    const rows = readLedgerSync(summary.ledger);
    expect(summary.stopped_early).toBe(true);
    expect(rows.length).toBe(sink.records.length);
    expect(rows.length).toBeLessThan(10_000);
    expect(rows.map((r) => r.seq)).toEqual(sink.records.map((_, i) => i));
    expect(readManifest(summary.manifest).counts.sends).toBe(rows.length);
  });

  it('falls behind loudly when the sink cannot keep up', async () => {
    const time = fakeTime(1_800_000_000_000);
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (_: object, msg?: string) => warnings.push(msg ?? '') };
    const slow = capturingSink(true, (_, i) => acked(i));
    const sink = {
      ...slow,
      send: (batch: Parameters<typeof slow.send>[0]) => {
        time.advance(200); // every call takes 200 ms, whatever its size: at most 500 records/s with batches of 100
        return slow.send(batch);
      },
    };
    const summary = await run({
      options: options({
        resultsDir: dir,
        startTime: time.clock(),
        count: 20_000,
        rate: 5000,
        maxBatch: 100,
      }),
      sink,
      logger,
      ...time,
    });
    expect(summary.fell_behind).toBe(true);
    expect(summary.max_lag_ms).toBeGreaterThan(1000);
    expect(summary.achieved_rate).toBeLessThan(1000);
    expect(warnings).toContain('falling behind the target rate');
    expect(warnings).toContain('run fell behind the target rate');
    expect(summary.sends).toBe(20_000);
  });
});
