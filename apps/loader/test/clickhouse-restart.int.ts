/** ClickHouse crashes and comes back while the loader runs: the loader retries its batch and nothing is lost or doubled (FINAL). */
import { createTopics, deleteTopics } from '@clickstream/kafka-tx';
import type { Warehouse } from '@clickstream/warehouse';
import {
  countsBySeq,
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
import { PrivateClickHouse } from './private-clickhouse';

describe('loader through a ClickHouse restart', () => {
  const id = uniqueId();
  const database = `loader_ch_${id}`;
  const topic = `it.loader.chrestart.${id}`;
  let ch: PrivateClickHouse;
  let wh: Warehouse;

  beforeAll(async () => {
    ch = await PrivateClickHouse.create();
    await ch.start();
    wh = openWarehouse(database, ch.url);
    await createTopics(kafka, [{ topic, partitions: 3 }]);
  });

  afterAll(async () => {
    await wh.close();
    await ch.destroy();
    await deleteTopics(kafka, [topic]);
  });

  it('retries while ClickHouse is down and ends exact', async () => {
    const run = `run_${id}`;
    const chunks = 30;
    const perChunk = 100;
    const expected = Array.from({ length: chunks * perChunk }, (_, i) => i);
    const loader = startLoader([
      '--clickhouse-url',
      ch.url,
      '--database',
      database,
      '--group',
      `g_${id}`,
      '--topics',
      `valid=${topic}`,
    ]);
    const producing = (async () => {
      for (let c = 0; c < chunks; c++) {
        await produceAll(
          expected
            .slice(c * perChunk, (c + 1) * perChunk)
            .map((s) => validRecord(topic, makeEvent(run, s))),
        );
        await sleep(100);
      }
    })();
    let raw = 0;
    try {
      await waitFor(
        'some rows before the crash',
        async () => (await totalRows(wh, TABLES.valid, run)) >= 500,
      );
      await ch.kill();
      await sleep(4000); // several failed attempts, with backoff, while the server is gone
      expect(loader.child.exitCode).toBeNull();
      await ch.start();
      await producing;
      await waitFor(
        'every record after the restart',
        async () => (await countsBySeq(wh, TABLES.valid, run, true)).size === expected.length,
      );
      raw = await totalRows(wh, TABLES.valid, run);
    } finally {
      expect(await stopLoader(loader)).toBe(0);
    }
    expect(exactness(await countsBySeq(wh, TABLES.valid, run, true), expected)).toEqual({
      missing: [],
      duplicated: [],
      unexpected: [],
    });
    expect(loader.output()).toMatch(/flush failed; retrying|batch handler failed; retrying/);
    process.stdout.write(
      `loader ClickHouse restart: ${expected.length} events, ${raw} raw rows (${raw - expected.length} duplicates not yet merged)\n`,
    );
  });
});
