import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import pino from 'pino';
import { FrameParser, runTopicReader, topicReaderArgs, type ScanOptions } from './topic-reader';
import type { InRecord } from './types';

/** The stream apps/topic-reader's Go test writes (main_test.go): both ends are held to it. */
const GOLDEN = Buffer.from(
  fs
    .readFileSync(path.join(__dirname, '../../../apps/topic-reader/testdata/frames.hex'), 'utf8')
    .trim(),
  'hex',
);

function shape(r: InRecord): object {
  return {
    ...r,
    key: r.key?.toString() ?? null,
    value: r.value?.toString() ?? null,
    headers: Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, v.toString()])),
  };
}

const EXPECTED = [
  {
    topic: 't',
    partition: 0,
    offset: 5,
    timestamp: 1700000000123,
    key: 'k',
    value: 'v',
    headers: { run: 'r1' },
  },
  {
    topic: 't',
    partition: 0,
    offset: 6,
    timestamp: 0,
    key: null,
    value: null,
    headers: { run: '', seq: '7' },
  },
  { topic: 't', partition: 3, offset: 2 ** 40, timestamp: -1, key: '', value: '', headers: {} },
];

function parse(chunks: Buffer[]): { parser: FrameParser; records: object[] } {
  const records: object[] = [];
  const parser = new FrameParser('t', { headers: ['run', 'seq'], keys: true, values: true }, (r) =>
    records.push(shape(r)),
  );
  for (const c of chunks) parser.push(c);
  return { parser, records };
}

describe('FrameParser', () => {
  it("parses the Go writer's golden stream, however it is cut into chunks", () => {
    for (let cut = 0; cut <= GOLDEN.length; cut++) {
      for (const step of [1, 7, GOLDEN.length]) {
        const chunks = [GOLDEN.subarray(0, cut)];
        for (let i = cut; i < GOLDEN.length; i += step) chunks.push(GOLDEN.subarray(i, i + step));
        const { parser, records } = parse(chunks);
        expect(records).toEqual(EXPECTED);
        expect(parser.partitions).toEqual([
          [0, 2, 7],
          [3, 1, 2 ** 40 + 1],
        ]);
        expect([parser.doneTotal, parser.records, parser.leftover]).toEqual([3, 3, 0]);
      }
    }
  });

  it('leaves a cut stream visibly incomplete, and refuses an unknown frame', () => {
    const { parser } = parse([GOLDEN.subarray(0, GOLDEN.length - 3)]);
    expect(parser.doneTotal).toBeNull();
    expect(parser.leftover).toBeGreaterThan(0);
    expect(() => parse([Buffer.from([9, 0, 0])])).toThrow('unknown frame kind 9');
  });
});

describe('runTopicReader: a reader that fails is an error that says why', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'topic-reader-spec-'));
  const o: ScanOptions = {
    bootstrap: 'h:1',
    clientId: 'c',
    logger: pino({ level: 'silent' }),
    topic: 't',
    headers: ['run', 'seq'],
    values: true,
    keys: true,
  };
  const ranges = {
    begin: new Map([
      [3, 2 ** 40],
      [0, 5],
      [1, 9],
    ]),
    end: new Map([
      [0, 7],
      [1, 9],
      [3, 2 ** 40 + 1],
    ]),
    logStart: new Map([
      [0, 0],
      [1, 0],
      [3, 0],
    ]),
  };
  const fake = (name: string, body: string): string => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    return file;
  };
  const golden = path.join(dir, 'golden.bin');
  fs.writeFileSync(golden, GOLDEN);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('passes partitions in order, empty ones left out, and what is wanted', () => {
    expect(topicReaderArgs(o, ranges)).toEqual(
      expect.arrayContaining([
        '-ranges',
        '0:5:7,3:1099511627776:1099511627777',
        '-headers',
        'run,seq',
        '-values',
        '-keys',
      ]),
    );
    expect(() => topicReaderArgs({ ...o, headers: ['a,b'] }, ranges)).toThrow('cannot be passed');
  });

  it('reads a stream that checks out', async () => {
    const seen: object[] = [];
    await expect(
      runTopicReader(o, fake('ok', `cat ${golden}`), ranges, (r) => seen.push(shape(r))),
    ).resolves.toBe(3);
    expect(seen).toEqual(EXPECTED);
  });

  it('fails on an exit code, with the last line of stderr', async () => {
    const bin = fake('exit70', 'echo "topic-reader: topic t: partition 0: broken" >&2; exit 70');
    await expect(runTopicReader(o, bin, ranges, () => undefined)).rejects.toThrow(
      /exited with 70: topic-reader: topic t: partition 0: broken/,
    );
  });

  it('fails on a stream without its done frame, or with other partitions than asked', async () => {
    const cut = fake('cut', `head -c ${GOLDEN.length - 9} ${golden}`);
    await expect(runTopicReader(o, cut, ranges, () => undefined)).rejects.toThrow(
      'ended without its done frame',
    );
    const other = { ...ranges, end: new Map([...ranges.end, [1, 10]]) };
    await expect(
      runTopicReader(o, fake('ok2', `cat ${golden}`), other, () => undefined),
    ).rejects.toThrow('does not match its request');
  });
});
