/** The loader's HTTP face on loopback: Prometheus metrics and a health endpoint. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { isHealthy, type Health } from './health';

export function startServer(
  port: number,
  registry: Registry,
  health: Health,
): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.url === '/metrics') {
      registry
        .metrics()
        .then((body) => {
          res.writeHead(200, { 'content-type': registry.contentType });
          res.end(body);
        })
        .catch((err: unknown) => {
          res.writeHead(500);
          res.end(String(err));
        });
      return;
    }
    if (req.url === '/healthz') {
      const ok = isHealthy(health);
      res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
      res.end(`${JSON.stringify({ ok, ...health })}\n`);
      return;
    }
    res.writeHead(404);
    res.end();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

export function portOf(server: http.Server): number {
  return (server.address() as AddressInfo).port;
}
