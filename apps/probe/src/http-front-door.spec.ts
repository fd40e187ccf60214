import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpFrontDoor } from './http-front-door';

describe('httpFrontDoor (loopback, no stack)', () => {
  let server: http.Server;
  let base = '';
  let answer = { status: 200, body: '{"accepted":1,"placements":[[4,17]]}' };
  const seen: { url?: string; type?: string; seq?: string; run?: string; bytes: number }[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({
          url: req.url,
          type: req.headers['content-type'],
          seq: req.headers['cs-seq'] as string,
          run: req.headers['cs-run-id'] as string,
          bytes: Buffer.concat(chunks).length,
        });
        res.writeHead(answer.status).end(answer.body);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const record = {
    topic: 'clickstream.raw',
    key: 'k',
    value: Buffer.from([0xc3, 0x01, 1, 2, 3]),
    headers: { 'cs-seq': '7', 'cs-run-id': 'probe-1' },
  };

  it('posts the record as application/avro with the generator headers, and reports the placement', async () => {
    const [r] = await httpFrontDoor(base).send([record]);
    expect(r).toEqual({
      ok: true,
      topic: 'clickstream.raw',
      partition: 4,
      offset: 17,
      error: null,
    });
    expect(seen[0]).toEqual({
      url: '/v1/events',
      type: 'application/avro',
      seq: '7',
      run: 'probe-1',
      bytes: 5,
    });
  });

  it('reports a refusal or an unreachable collector as a failed delivery, never a throw', async () => {
    answer = { status: 503, body: '{"error":"kafka_unavailable"}' };
    const [r] = await httpFrontDoor(base).send([record]);
    expect(r).toMatchObject({ ok: false, error: expect.stringMatching(/HTTP 503/) });
    const [u] = await httpFrontDoor('http://127.0.0.1:1').send([record]);
    expect(u).toMatchObject({ ok: false, error: expect.stringMatching(/collector unreachable/) });
  });
});
