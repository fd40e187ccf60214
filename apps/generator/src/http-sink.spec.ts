import { decodeFrames } from '@clickstream/contracts';
import { httpSink } from './http-sink';

const records = [0, 1, 2].map((seq) => ({
  key: seq === 2 ? null : 's',
  value: Buffer.from([seq]),
  headers: { 'cs-seq': String(seq), 'cs-run-id': 'r' },
  timestamp: 1,
}));

function fakeFetch(answer: (n: number) => Response | Error) {
  const bodies: Buffer[] = [];
  const f = (async (_url: unknown, init?: RequestInit) => {
    const body = init?.body as Buffer;
    bodies.push(body);
    const decoded = decodeFrames(body, 100);
    const a = answer(decoded.ok ? decoded.frames.length : -1);
    if (a instanceof Error) throw a;
    return a;
  }) as typeof fetch;
  return { f, bodies };
}

describe('httpSink', () => {
  it('posts frames in chunks and books a 2xx as acked with the placements', async () => {
    const { f, bodies } = fakeFetch(
      (n) =>
        new Response(
          JSON.stringify({
            accepted: n,
            placements: Array.from({ length: n }, (_, i) => [3, 10 + i]),
          }),
        ),
    );
    const sink = httpSink({
      url: 'http://x/v1/events',
      maxPerRequest: 2,
      timeoutMs: 1000,
      fetch: f,
    });
    const out = await sink.send(records);
    expect(out.map((o) => [o.delivery, o.partition, o.offset])).toEqual([
      ['acked', 3, 10],
      ['acked', 3, 11],
      ['acked', 3, 10],
    ]);
    const frames = bodies.map((b) => decodeFrames(b, 100));
    expect(frames[1]).toEqual({
      ok: true,
      frames: [{ key: null, headers: records[2]!.headers, value: records[2]!.value }],
    });
  });

  it('books a 5xx, a 4xx and a transport error as failed (indefinite), never throwing', async () => {
    for (const answer of [
      () => new Response('{"error":"ack_timeout"}', { status: 503 }),
      () => new Response('{"error":"bad_frames"}', { status: 400 }),
      () => new Error('socket hang up'),
    ]) {
      const sink = httpSink({
        url: 'http://x',
        maxPerRequest: 10,
        timeoutMs: 1000,
        fetch: fakeFetch(answer).f,
      });
      const out = await sink.send(records);
      expect(out.map((o) => o.delivery)).toEqual(['failed', 'failed', 'failed']);
      expect(out[0]?.error).toMatch(/outcome indefinite/);
    }
  });
});
