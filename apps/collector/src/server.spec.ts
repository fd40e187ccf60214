import * as net from 'node:net';
import { gzipSync } from 'node:zlib';
import { encodeEvent } from '@clickstream/contracts';
import { refused } from './errors';
import type { IngestResult } from './ingest';
import type { CarriedRecord } from './records';
import { startCollectorServer, type CollectorServer, type ConnectionClose } from './server';
import { sampleEvent } from './testing';

let server: CollectorServer;
let answer: (records: readonly CarriedRecord[]) => IngestResult;
const ingested: CarriedRecord[][] = [];
const closes: ConnectionClose[] = [];
const errorOf = async (res: Response): Promise<unknown> =>
  ((await res.json()) as { error?: unknown }).error;
const url = (path: string): string => `http://127.0.0.1:${server.port}${path}`;
const quiet = { info: () => undefined, warn: () => undefined };

beforeAll(async () => {
  server = await startCollectorServer({
    host: '127.0.0.1',
    port: 0,
    ingestor: {
      ingest: (records) => {
        ingested.push([...records]);
        return Promise.resolve(answer(records));
      },
    },
    limits: {
      maxBodyBytes: 4096,
      maxEvents: 5,
      maxRecordBytes: 2048,
      maxHeaderBytes: 2048,
      requestTimeoutMs: 2000,
      keepAliveTimeoutMs: 1000,
    },
    corsOrigins: '*',
    retryAfterSeconds: 2,
    logger: quiet,
    hooks: { onConnectionClosed: (reason) => closes.push(reason) },
  });
});
afterAll(() => server.close());
beforeEach(() => {
  ingested.length = 0;
  closes.length = 0;
  answer = (records) => ({
    ok: true,
    placements: records.map((_, i) => ({ partition: 1, offset: i })),
  });
});

const json = (events: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(events),
});

describe('collector HTTP', () => {
  it('answers 200 with the placements after ingesting, with CORS', async () => {
    const res = await fetch(url('/v1/events'), json([sampleEvent(1), sampleEvent(2)]));
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.json()).toEqual({
      accepted: 2,
      placements: [
        [1, 0],
        [1, 1],
      ],
    });
    expect(ingested[0]?.map((r) => r.value)).toEqual([
      encodeEvent(sampleEvent(1)),
      encodeEvent(sampleEvent(2)),
    ]);
  });

  it('reads gzip bodies and refuses other encodings and gzip bombs', async () => {
    const body = gzipSync(Buffer.from(JSON.stringify([sampleEvent(1)])));
    const ok = await fetch(url('/v1/events'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body,
    });
    expect(ok.status).toBe(200);
    const br = await fetch(url('/v1/events'), {
      method: 'POST',
      headers: { 'content-encoding': 'br' },
      body,
    });
    expect([br.status, await errorOf(br)]).toEqual([400, 'bad_encoding']);
    const bomb = gzipSync(Buffer.from(`[${' '.repeat(100_000)}]`));
    const big = await fetch(url('/v1/events'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: bomb,
    });
    expect([big.status, await errorOf(big)]).toEqual([413, 'body_too_large']);
  });

  it('answers 413 for an oversized body and too many events, 400 for neither JSON nor Avro', async () => {
    const big = await fetch(url('/v1/events'), { method: 'POST', body: 'x'.repeat(5000) });
    expect([big.status, await errorOf(big)]).toEqual([413, 'body_too_large']);
    const many = await fetch(
      url('/v1/events'),
      json([1, 2, 3, 4, 5, 6].map((s) => sampleEvent(s))),
    );
    expect(await many.json()).toEqual({
      error: 'too_many_events',
      detail: '6 events in one request; at most 5',
    });
    const neither = await fetch(url('/v1/events'), { method: 'POST', body: 'hello' });
    expect([neither.status, await errorOf(neither)]).toEqual([400, 'not_json_or_avro']);
    expect(ingested).toEqual([]);
  });

  it('answers 503 with Retry-After when Kafka does not take the events', async () => {
    answer = () => refused('kafka_unavailable', 'Kafka did not take every event: down');
    const res = await fetch(url('/v1/events'), json([sampleEvent(1)]));
    expect([res.status, res.headers.get('retry-after'), await errorOf(res)]).toEqual([
      503,
      '2',
      'kafka_unavailable',
    ]);
  });

  it('takes beacons: POST text/plain and GET ?e=, answering 204', async () => {
    const post = await fetch(url('/v1/beacon'), {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: JSON.stringify([sampleEvent(1)]),
    });
    expect(post.status).toBe(204);
    const get = await fetch(
      url(`/v1/beacon?e=${encodeURIComponent(JSON.stringify(sampleEvent(2)))}`),
    );
    expect(get.status).toBe(204);
    expect(ingested.map((b) => b.length)).toEqual([1, 1]);
    const none = await fetch(url('/v1/beacon'));
    expect([none.status, await errorOf(none)]).toEqual([400, 'no_events']);
  });

  it('answers CORS preflight, 404 and 405', async () => {
    const pre = await fetch(url('/v1/events'), { method: 'OPTIONS' });
    expect([pre.status, pre.headers.get('access-control-allow-methods')]).toEqual([
      204,
      'POST, GET, OPTIONS',
    ]);
    expect((await fetch(url('/nope'))).status).toBe(404);
    expect((await fetch(url('/v1/events'), { method: 'PUT' })).status).toBe(405);
  });

  it('refuses an oversized head with 431', async () => {
    const res = await fetch(url('/v1/events'), {
      ...json([sampleEvent(1)]),
      headers: { 'x-big': 'y'.repeat(4000) },
    });
    expect(res.status).toBe(431);
    expect(closes).toEqual(['headers_too_large']);
  });

  it('cuts off a client that does not send its whole body in time', async () => {
    const reply = await new Promise<string>((resolve) => {
      const socket = net.connect(server.port, '127.0.0.1', () => {
        socket.write(
          'POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n[',
        );
      });
      let text = '';
      socket.on('data', (d) => (text += d.toString()));
      socket.on('close', () => resolve(text));
    });
    expect(reply).toMatch(/^HTTP\/1\.1 408/);
    expect(ingested).toEqual([]);
    expect(closes).toEqual(['request_timeout']);
  });

  it('closes an idle keep-alive connection after the advertised time, and counts it', async () => {
    const started = Date.now();
    const { head, closedAfterMs } = await new Promise<{ head: string; closedAfterMs: number }>(
      (resolve) => {
        const socket = net.connect(server.port, '127.0.0.1', () => {
          socket.write('OPTIONS /v1/events HTTP/1.1\r\nHost: x\r\n\r\n');
        });
        let text = '';
        socket.on('data', (d) => (text += d.toString()));
        socket.on('close', () => resolve({ head: text, closedAfterMs: Date.now() - started }));
      },
    );
    expect(head).toMatch(/^HTTP\/1\.1 204[^]*Keep-Alive: timeout=1\r\n/);
    // Node closes 1 s after the advertised timeout, so that a client honouring it closes first.
    expect(closedAfterMs).toBeGreaterThanOrEqual(1000);
    expect(closes).toEqual(['idle']);
  });
});

/** Blocks the event loop, as a busy or CPU-starved process does. */
function stall(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // spin
  }
}

describe('collector HTTP: a stalled event loop does not reset a request on a kept-alive connection', () => {
  it('answers a request that arrived before the idle timer fired late', async () => {
    const lagging = await startCollectorServer({
      host: '127.0.0.1',
      port: 0,
      ingestor: { ingest: () => Promise.resolve({ ok: true, placements: [] }) },
      limits: {
        maxBodyBytes: 4096,
        maxEvents: 5,
        maxRecordBytes: 2048,
        maxHeaderBytes: 2048,
        requestTimeoutMs: 5000,
        // Node closes an idle connection 1 s after the advertised timeout: at 1.1 s here.
        keepAliveTimeoutMs: 100,
      },
      corsOrigins: '*',
      retryAfterSeconds: 1,
      logger: quiet,
    });
    try {
      const replies = await new Promise<string>((resolve) => {
        const request = 'OPTIONS /v1/events HTTP/1.1\r\nHost: x\r\n\r\n';
        const socket = net.connect(lagging.port, '127.0.0.1', () => socket.write(request));
        let text = '';
        socket.on('data', (d) => {
          text += d.toString();
          if (text.split('HTTP/1.1 204').length === 2)
            // Idle for 1 s, then the second request reaches the server's socket just before a
            // 0.5 s stall, past which the server's idle timer (1.1 s) is due with it unread. The
            // stall runs after the timers phase, so that the next turn starts with that timer.
            setTimeout(
              () =>
                setImmediate(() => {
                  socket.write(request);
                  stall(500);
                }),
              1000,
            );
          if (text.split('HTTP/1.1 204').length === 3) socket.end();
        });
        socket.on('error', (err) => (text += ` [${err.message}]`));
        socket.on('close', () => resolve(text));
      });
      expect(replies.match(/HTTP\/1\.1 \d+|\[[^\]]*\]/g)).toEqual(['HTTP/1.1 204', 'HTTP/1.1 204']);
    } finally {
      await lagging.close();
    }
  });
});

describe('collector HTTP: slow-client limits never cut a request that waits for Kafka', () => {
  it('answers a request whose acknowledgements take longer than the request timeout', async () => {
    const slow = await startCollectorServer({
      host: '127.0.0.1',
      port: 0,
      ingestor: {
        ingest: (records) =>
          new Promise((resolve) =>
            setTimeout(
              () => resolve(refused('ack_timeout', `${records.length} events not acknowledged`)),
              1200,
            ),
          ),
      },
      limits: {
        maxBodyBytes: 4096,
        maxEvents: 5,
        maxRecordBytes: 2048,
        maxHeaderBytes: 2048,
        requestTimeoutMs: 300,
        keepAliveTimeoutMs: 1000,
      },
      corsOrigins: '*',
      retryAfterSeconds: 1,
      logger: quiet,
    });
    try {
      const res = await fetch(`http://127.0.0.1:${slow.port}/v1/events`, json([sampleEvent(1)]));
      expect([res.status, res.headers.get('retry-after'), await errorOf(res)]).toEqual([
        503,
        '1',
        'ack_timeout',
      ]);
    } finally {
      await slow.close();
    }
  });
});
