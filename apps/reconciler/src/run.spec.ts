import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import pino from 'pino';
import { encodeEvent, HEADERS, type ClickEvent, type LedgerRow } from '@clickstream/contracts';
import type { InRecord } from '@clickstream/kafka-tx';
import {
  LEDGER_FILE,
  MANIFEST_FILE,
  readManifest,
  writeLedger,
  writeManifest,
} from '@clickstream/ledger';
import { recordsTopicSource } from './adapters/kafka';
import { readLedgerIndex } from './adapters/ledger';
import { parseConfig } from './config';
import type { LayerRead } from './core/contents';
import type { EventLayer } from './core/layers';
import { kafkaReadStart, run, type RunDeps } from './run';
import { manifestFor, RUN, validSend } from '../test/ledger-rows';

const T0 = 1_700_000_000_000;

function record(topic: string, row: LedgerRow, offset: number, value: Buffer): InRecord {
  return {
    topic,
    partition: 0,
    offset,
    key: null,
    value,
    headers: { [HEADERS.seq]: Buffer.from(String(row.seq)), [HEADERS.runId]: Buffer.from(RUN) },
    timestamp: row.send_time,
  };
}

function eventOf(row: LedgerRow): ClickEvent {
  return {
    event_id: `00000000-0000-4000-8000-${String(row.seq).padStart(12, '0')}`,
    seq: row.seq,
    run_id: RUN,
    event_type: 'page_view',
    event_time: row.event_time as number,
    session_id: 's',
    user_id: null,
    page: '/',
    product_id: null,
    quantity: null,
    amount_cents: null,
    currency: null,
    device: null,
    ingest_time: row.send_time,
  };
}

describe('run: downstream expectations follow what raw holds', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reconciler-run-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a send the generator saw fail, in raw but lost before events.valid: valid inexact, the late layer never exact', async () => {
    const rows = [0, 1].map((seq) =>
      validSend(seq, {
        event_id: eventOf(validSend(seq)).event_id,
        event_time: T0 + seq,
        send_time: T0 + 10 + seq,
        ...(seq === 1 ? { delivery: 'failed' as const, delivery_error: 'timed out' } : {}),
      }),
    );
    await writeLedger(path.join(dir, LEDGER_FILE), rows);
    writeManifest(path.join(dir, MANIFEST_FILE), manifestFor(rows, { ledger_file: LEDGER_FILE }));
    const topics: Record<string, InRecord[]> = {
      'clickstream.raw': rows.map((r, i) =>
        record('clickstream.raw', r, i, encodeEvent(eventOf(r))),
      ),
      'events.valid': [record('events.valid', rows[0]!, 0, encodeEvent(eventOf(rows[0]!)))],
      'events.late': [],
    };
    const parsed = parseConfig(
      ['--run-dir', dir, '--layers', 'clickstream.raw,events.valid,events.late'],
      {},
    );
    if (parsed.help) throw new Error('unexpected --help');
    const { report } = await run({
      config: parsed.config,
      logger: pino({ level: 'silent' }),
      ledger: { index: readLedgerIndex, manifest: (f) => readManifest(f) },
      kafka: () => recordsTopicSource(topics, (t) => new Map([[0, (topics[t] ?? []).length]])),
      sql: () => {
        throw new Error('no ClickHouse layer requested');
      },
      print: () => undefined,
    });
    const byLayer = Object.fromEntries(report.layers.map((l) => [l.layer, l]));
    expect(byLayer['clickstream.raw']).toMatchObject({ verdict: 'exact', observed: 2 });
    expect(byLayer['events.valid']).toMatchObject({
      verdict: 'inexact',
      missing: { count: 1, examples: [{ seq: 1 }] },
      differing: { count: 0 },
    });
    // The lost event's ingest time is unknown, so the late layer cannot be exact (it was, before raw decided).
    expect(byLayer['events.late']?.verdict).toBe('unknown');
    expect(byLayer['events.late']?.notes.join()).toContain(
      '1 acknowledged event(s) not (yet) in events.valid',
    );
  });
});

describe('run: with a second thread', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reconciler-second-thread-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function runWith(layers: string, secondThread: RunDeps['secondThread']) {
    const rows = [0, 1].map((seq) => validSend(seq));
    await writeLedger(path.join(dir, LEDGER_FILE), rows);
    writeManifest(path.join(dir, MANIFEST_FILE), manifestFor(rows, { ledger_file: LEDGER_FILE }));
    const parsed = parseConfig(['--run-dir', dir, '--layers', layers], {});
    if (parsed.help) throw new Error('unexpected --help');
    return run({
      config: parsed.config,
      logger: pino({ level: 'silent' }),
      ledger: { index: readLedgerIndex, manifest: (f) => readManifest(f) },
      kafka: () => recordsTopicSource({}),
      sql: () => {
        throw new Error("the stored layers are the second thread's to read");
      },
      iceberg: () => Promise.reject(new Error("the stored layers are the second thread's to read")),
      secondThread,
      print: () => undefined,
    });
  }

  it('the stored layers are read by the second thread, with the ledger event ids for the clean ones, and it is closed', async () => {
    const calls: { layers: readonly string[]; ids: unknown[] }[] = [];
    const close = jest.fn(() => Promise.resolve());
    const { report } = await runWith('clickhouse.valid,iceberg.clean', (request, ids) => {
      calls.push({ layers: request.layers, ids: Array.from(ids) });
      return {
        stored: (done) => {
          const reads = new Map<EventLayer, LayerRead>([
            [
              'clickhouse.valid',
              {
                ok: true,
                contents: { seqs: Int32Array.from([0, 1]), foreign: 0, notes: [], readMs: 1 },
              },
            ],
            [
              'iceberg.clean',
              { ok: false, error: 'the second thread exited with code 1', readMs: 1 },
            ],
          ]);
          for (const [layer, read] of reads) done?.(layer, read);
          return Promise.resolve(reads);
        },
        aggregateReducer: () => {
          throw new Error('no agg.sessions layer');
        },
        close,
      };
    });
    expect(calls).toEqual([{ layers: ['clickhouse.valid', 'iceberg.clean'], ids: ['e-0', 'e-1'] }]);
    expect(report.layers.map((l) => [l.layer, l.verdict])).toEqual([
      ['clickhouse.valid', 'exact'],
      ['iceberg.clean', 'unknown'],
    ]);
    expect(report.layers[1]?.notes[0]).toBe(
      'layer could not be read: the second thread exited with code 1',
    );
    expect(close).toHaveBeenCalledTimes(1);
  });

  it('no second thread is started when it would have nothing to do, and none gets event ids it does not need', async () => {
    const started: unknown[][] = [];
    const secondThread: RunDeps['secondThread'] = (request, ids) => {
      started.push([request.layers, Array.from(ids)]);
      return {
        stored: (done) => {
          const read: LayerRead = { ok: false, error: 'x', readMs: 0 };
          done?.('clickhouse.dlq', read);
          return Promise.resolve(new Map([['clickhouse.dlq', read]]));
        },
        aggregateReducer: () => {
          throw new Error('no agg.sessions layer');
        },
        close: () => Promise.resolve(),
      };
    };
    await runWith('events.late', secondThread);
    expect(started).toEqual([]);
    await runWith('clickhouse.dlq', secondThread);
    expect(started).toEqual([[['clickhouse.dlq'], []]]);
  });
});

describe('kafkaReadStart: where every topic is read from', () => {
  const runStart = { kafkaFrom: 'run-start', kafkaMarginS: 60 } as const;

  it('the run start less the margin, when the manifest has a start', () => {
    expect(kafkaReadStart(runStart, { started_at: T0 })).toEqual({
      fromTimeMs: T0 - 60_000,
      from: `from ${new Date(T0 - 60_000).toISOString()} (the run's start less 60 s)`,
    });
    expect(kafkaReadStart({ ...runStart, kafkaMarginS: 0 }, { started_at: T0 }).fromTimeMs).toBe(
      T0,
    );
  });

  it('the beginning when asked, without a manifest, or for a start at the epoch', () => {
    for (const [config, manifest, why] of [
      [{ ...runStart, kafkaFrom: 'beginning' }, { started_at: T0 }, /--kafka-from beginning/],
      [runStart, null, /no manifest/],
      [runStart, { started_at: 0 }, /epoch/],
      [runStart, { started_at: 59_999 }, /epoch/],
    ] as const) {
      const start = kafkaReadStart(config, manifest);
      expect(start.fromTimeMs).toBeNull();
      expect(start.from).toMatch(/^from the beginning/);
      expect(start.from).toMatch(why);
    }
  });
});
