/** The loader against the real stack: every valid and dead-letter record lands exactly once (by FINAL), through SIGTERM and SIGKILL. */
import { createTopics, deleteTopics } from '@clickstream/kafka-tx';
import { DDL_DIR, type Warehouse } from '@clickstream/warehouse';
import {
  countsBySeq,
  dlqRecord,
  exactness,
  kafka,
  makeEvent,
  openWarehouse,
  produceAll,
  sleep,
  startLoader,
  stopLoader,
  TABLES,
  totalRows,
  uniqueId,
  validRecord,
  waitFor,
} from './harness';

const range = (from: number, n: number): number[] => Array.from({ length: n }, (_, i) => from + i);

describe('loader', () => {
  const id = uniqueId();
  const database = `loader_it_${id}`;
  const validTopic = `it.loader.valid.${id}`;
  const dlqTopic = `it.loader.dlq.${id}`;
  // The crash test counts the batches the loader sees, so no other test's records may be in its topic.
  const crashTopic = `it.loader.crash.${id}`;
  let wh: Warehouse;

  beforeAll(async () => {
    await createTopics(kafka, [
      { topic: validTopic, partitions: 3 },
      { topic: dlqTopic, partitions: 2 },
      { topic: crashTopic, partitions: 3 },
    ]);
    wh = openWarehouse(database);
    // No background merges: raw row counts then show every redelivery, so the specs can assert
    // that duplicates were stored and that FINAL hides them (FINAL merges at read time anyway).
    await wh.applyDdl(DDL_DIR);
    await wh.command(`SYSTEM STOP MERGES ${database}.${TABLES.valid}`);
  });

  afterAll(async () => {
    await wh.command(`DROP DATABASE IF EXISTS ${database}`);
    await wh.close();
    await deleteTopics(kafka, [validTopic, dlqTopic, crashTopic]);
  });

  const flags = (group: string, topics = `valid=${validTopic},dlq=${dlqTopic}`): string[] => [
    '--database',
    database,
    '--group',
    group,
    '--topics',
    topics,
    '--flush-ms',
    '250',
  ];

  it('loads every valid and dead-letter record exactly once and exits 0 on SIGTERM', async () => {
    const run = `run_a_${id}`;
    const valid = range(0, 500);
    const dead = range(500, 25);
    await produceAll([
      ...valid.map((s) => validRecord(validTopic, makeEvent(run, s))),
      ...dead.map((s) => dlqRecord(dlqTopic, run, s)),
    ]);

    const loader = startLoader(flags(`g_a_${id}`));
    try {
      await waitFor('every record to be loaded', async () => {
        const [v, d] = await Promise.all([
          countsBySeq(wh, TABLES.valid, run, true),
          countsBySeq(wh, TABLES.dlq, run, true),
        ]);
        return v.size === valid.length && d.size === dead.length;
      });
    } finally {
      expect(await stopLoader(loader)).toBe(0);
    }

    expect(exactness(await countsBySeq(wh, TABLES.valid, run, true), valid)).toEqual({
      missing: [],
      duplicated: [],
      unexpected: [],
    });
    expect(exactness(await countsBySeq(wh, TABLES.dlq, run, true), dead)).toEqual({
      missing: [],
      duplicated: [],
      unexpected: [],
    });

    const [letter] = await wh.query<{
      reason: string;
      source_offset: number;
      value_base64: string;
    }>(
      `SELECT reason, source_offset, value_base64 FROM ${TABLES.dlq} FINAL WHERE run_id = {run:String} AND seq = {seq:Int64}`,
      { run, seq: 501 },
    );
    expect(letter).toEqual({
      reason: 'bad_magic',
      source_offset: 1501,
      value_base64: dlqRecord('x', run, 501).value?.toString('base64'),
    });
    const [fresh] = await wh.query<{ bad: number }>(
      `SELECT countIf(inserted_at < ingest_time OR kafka_topic != {t:String}) AS bad FROM ${TABLES.valid} WHERE run_id = {run:String}`,
      { run, t: validTopic },
    );
    expect(fresh?.bad).toBe(0);
  });

  it('stays exact with FINAL when SIGKILLed mid-run and restarted, in both lanes', async () => {
    const run = `run_b_${id}`;
    const group = `g_b_${id}`;
    const chunks = 20;
    const perChunk = 100;
    const expected = range(0, chunks * perChunk);
    // Dead letters go to the slow lane (a second consumer of the same group, flushing every 5 s).
    const deadPerChunk = 5;
    const dead = range(100_000, chunks * deadPerChunk);

    const first = startLoader(flags(group));
    const producing = (async () => {
      for (let c = 0; c < chunks; c++) {
        await produceAll([
          ...range(c * perChunk, perChunk).map((s) => validRecord(validTopic, makeEvent(run, s))),
          ...range(100_000 + c * deadPerChunk, deadPerChunk).map((s) =>
            dlqRecord(dlqTopic, run, s),
          ),
        ]);
        await sleep(150);
      }
    })();

    await waitFor(
      'the first loader to load some rows',
      async () => (await totalRows(wh, TABLES.valid, run)) >= 300,
    );
    expect(await stopLoader(first, 'SIGKILL')).toBeNull();
    const second = startLoader(flags(group));
    let raw = 0;
    try {
      await producing;
      await waitFor(
        'every record after the restart',
        async () =>
          (await countsBySeq(wh, TABLES.valid, run, true)).size === expected.length &&
          (await countsBySeq(wh, TABLES.dlq, run, true)).size === dead.length,
      );
      raw = await totalRows(wh, TABLES.valid, run);
    } finally {
      expect(await stopLoader(second)).toBe(0);
    }

    expect(exactness(await countsBySeq(wh, TABLES.valid, run, true), expected)).toEqual({
      missing: [],
      duplicated: [],
      unexpected: [],
    });
    expect(exactness(await countsBySeq(wh, TABLES.dlq, run, true), dead)).toEqual({
      missing: [],
      duplicated: [],
      unexpected: [],
    });
    const rawCounts = await countsBySeq(wh, TABLES.valid, run, false);
    expect(raw).toBeGreaterThanOrEqual(expected.length);
    // At-least-once evidence, reported not asserted: how many rows the restart loaded twice.
    process.stdout.write(
      `loader SIGKILL: ${expected.length} events, ${raw} raw rows (${raw - expected.length} redelivered duplicates), ${[...rawCounts.values()].filter((n) => n > 1).length} seqs with >1 raw row now\n`,
    );
  });
  it('redelivers a batch that was inserted but not committed (injected crash), and FINAL still holds each event once', async () => {
    const run = `run_c_${id}`;
    const group = `g_c_${id}`;
    const expected = range(0, 1500);
    // Three chunks, so that the loader sees (at least) three batches and crashes after the third's insert.
    for (const c of [0, 1, 2]) {
      await produceAll(
        expected
          .slice(c * 500, (c + 1) * 500)
          .map((s) => validRecord(crashTopic, makeEvent(run, s))),
      );
    }
    const crashing = startLoader([
      ...flags(group, `valid=${crashTopic}`),
      '--flush-rows',
      '200',
      '--fault',
      'crash-after-insert',
      '--fault-after-batches',
      '3',
    ]);
    await crashing.exited;
    expect(crashing.child.signalCode).toBe('SIGKILL');
    const loadedBeforeCrash = await totalRows(wh, TABLES.valid, run);
    expect(loadedBeforeCrash).toBeGreaterThan(0);

    const second = startLoader(flags(group, `valid=${crashTopic}`));
    let raw = 0;
    try {
      await waitFor(
        'every record after the crash',
        async () => (await countsBySeq(wh, TABLES.valid, run, true)).size === expected.length,
      );
      raw = await totalRows(wh, TABLES.valid, run);
    } finally {
      expect(await stopLoader(second)).toBe(0);
    }
    expect(exactness(await countsBySeq(wh, TABLES.valid, run, true), expected)).toEqual({
      missing: [],
      duplicated: [],
      unexpected: [],
    });
    // The crash came after the third batch's INSERT and before its commit: it was loaded twice.
    expect(raw).toBeGreaterThan(expected.length);
    process.stdout.write(
      `loader crash-after-insert: ${loadedBeforeCrash} rows before the crash, ${raw} raw rows for ${expected.length} events (${raw - expected.length} redelivered duplicates, merges stopped)\n`,
    );
  });
});
