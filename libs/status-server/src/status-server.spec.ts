import { startStatusServer, type StatusServer } from './status-server';

// Loopback only, port 0: a unit spec that needs no stack.
describe('status server', () => {
  let server: StatusServer;
  let healthy = true;
  beforeAll(async () => {
    server = await startStatusServer({
      host: '127.0.0.1',
      port: 0,
      metrics: {
        contentType: 'text/plain; version=0.0.4',
        metrics: () => Promise.resolve('up 1\n'),
      },
      health: () => ({ status: healthy ? 200 : 503, body: { healthy } }),
    });
  });
  afterAll(() => server.close());
  const get = (path: string, method = 'GET') =>
    fetch(`http://127.0.0.1:${server.port}${path}`, { method });

  it('serves the metrics text with its content type', async () => {
    const res = await get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4');
    expect(await res.text()).toBe('up 1\n');
  });
  it('reports health as the check says, at every request', async () => {
    healthy = true;
    expect((await get('/healthz')).status).toBe(200);
    healthy = false;
    const res = await get('/healthz');
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ healthy: false });
  });
  it('answers 404 elsewhere and 405 for writes', async () => {
    expect((await get('/nope')).status).toBe(404);
    expect((await get('/metrics', 'POST')).status).toBe(405);
  });
  it('fails to start on a taken port instead of hanging', async () => {
    await expect(
      startStatusServer({
        host: '127.0.0.1',
        port: server.port,
        metrics: { contentType: 'x', metrics: () => Promise.resolve('') },
        health: () => ({ status: 200, body: {} }),
      }),
    ).rejects.toThrow(/EADDRINUSE/);
  });
});

describe('listen', () => {
  it('serves any handler on a free port and closes with open connections', async () => {
    const http = await import('node:http');
    const { listen } = await import('./status-server');
    const s = await listen(
      http.createServer((_req, res) => res.end('hi')),
      '127.0.0.1',
      0,
    );
    expect(s.port).toBeGreaterThan(0);
    expect(await (await fetch(`http://127.0.0.1:${s.port}/`)).text()).toBe('hi');
    await s.close();
    await expect(fetch(`http://127.0.0.1:${s.port}/`)).rejects.toThrow();
  });

  it('rejects when the port is taken', async () => {
    const http = await import('node:http');
    const { listen } = await import('./status-server');
    const first = await listen(http.createServer(), '127.0.0.1', 0);
    await expect(listen(http.createServer(), '127.0.0.1', first.port)).rejects.toThrow(
      /EADDRINUSE/,
    );
    await first.close();
  });
});
