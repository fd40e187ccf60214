/**
 * CPU cost per event of the collector's own work, without Kafka or sockets (not part of
 * `npm test`): parse a request body, hand the records to the Ingestor (a producer that acknowledges
 * at once) and serialize the 200 answer. Counts process CPU time (user + system), not wall time, so
 * that other work on the machine does not inflate it. Run it under `node --cpu-prof` for a profile.
 *
 * Usage: npx nx run collector:bench-pure -- [--batch B] [--seconds S] [--body json|json-no-id|frames]
 * Writes results/bench/collector-pure-<time>.json.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { FRAMES_CONTENT_TYPE, encodeEvent, encodeFrames } from '@clickstream/contracts';
import type { DeliveryReport, OutRecord } from '@clickstream/kafka-tx';
import { Ingestor } from '../src/ingest';
import { parseBody } from '../src/records';
import { asJson, pageViews } from './sample-event';

const ROOT = path.resolve(__dirname, '../../../..');

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? (process.argv[i + 1] as string) : fallback;
}

const batch = Number(flag('batch', '50'));
const seconds = Number(flag('seconds', '5'));
const bodyKind = flag('body', 'json');
if (!['json', 'json-no-id', 'frames'].includes(bodyKind))
  throw new Error(`--body ${bodyKind}: expected json, json-no-id or frames`);
const runId = `bench-pure-${Date.now()}`;
/** The same page views as the HTTP bench sends (bench/sample-event.ts). */
const event = pageViews(runId);

function body(): { type: string; bytes: Buffer } {
  const events = Array.from({ length: batch }, event);
  if (bodyKind === 'frames')
    return {
      type: FRAMES_CONTENT_TYPE,
      bytes: encodeFrames(
        events.map((e) => ({
          key: e.session_id,
          headers: { 'cs-seq': String(e.seq), 'cs-run-id': e.run_id },
          value: encodeEvent(e),
        })),
      ),
    };
  const json = events.map((e) => {
    // The HTTP bench's shape; json-no-id also leaves out event_id.
    const o = asJson(e);
    if (bodyKind === 'json-no-id') {
      const { event_id: _id, ...rest } = o;
      return rest;
    }
    return o;
  });
  return { type: 'application/json', bytes: Buffer.from(JSON.stringify(json)) };
}

const instantProducer = {
  send: (records: OutRecord[]): Promise<DeliveryReport[]> =>
    Promise.resolve(
      records.map((r, i) => ({
        ok: true,
        topic: r.topic,
        partition: i % 6,
        offset: 1_000_000 + i,
        error: null,
      })),
    ),
};

async function main(): Promise<void> {
  const bodies = Array.from({ length: 200 }, body);
  const ingestor = new Ingestor({
    producer: instantProducer,
    topic: 'clickstream.raw',
    maxInFlightEvents: 1e9,
    ackTimeoutMs: 10_000,
  });
  const limits = { maxEvents: 1000, maxRecordBytes: 512 * 1024 };
  const once = async (i: number): Promise<number> => {
    const b = bodies[i % bodies.length]!;
    const parsed = parseBody(b.type, b.bytes, limits);
    if (!parsed.ok) throw new Error(`bench body refused: ${parsed.error}`);
    const result = await ingestor.ingest(parsed.records);
    if (!result.ok) throw new Error(`bench ingest refused: ${result.error}`);
    JSON.stringify({
      accepted: parsed.records.length,
      placements: result.placements.map((p) => [p.partition, p.offset]),
    });
    return parsed.records.length;
  };
  for (let i = 0; i < 400; i++) await once(i); // warm up the JIT
  const started = new Date().toISOString();
  const cpu0 = process.cpuUsage();
  const wall0 = process.hrtime.bigint();
  let events = 0;
  let requests = 0;
  while (Number(process.hrtime.bigint() - wall0) < seconds * 1e9) events += await once(requests++);
  const cpu = process.cpuUsage(cpu0);
  const wallS = Number(process.hrtime.bigint() - wall0) / 1e9;
  const cpuUs = cpu.user + cpu.system;
  const summary = {
    body: bodyKind,
    events_per_request: batch,
    requests,
    events,
    cpu_us_per_event: Number((cpuUs / events).toFixed(2)),
    events_per_cpu_second: Math.round(events / (cpuUs / 1e6)),
    wall_s: Number(wallS.toFixed(2)),
    loadavg_1m: Number(
      (fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0] as string).slice(0, 6),
    ),
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  const file = path.join(
    ROOT,
    'results/bench',
    `collector-pure-${started.replace(/[:.]/g, '-')}.json`,
  );
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    `${JSON.stringify({ started, command: process.argv.slice(2), summary }, null, 2)}\n`,
  );
  process.stdout.write(`wrote ${path.relative(ROOT, file)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(
    `collector pure bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
