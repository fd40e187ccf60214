/** The HTTP face every app shows on loopback: /metrics for Prometheus and /healthz for supervisors and tests. */

import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What serves the metrics text; a prom-client Registry fits without this library depending on it. */
export interface MetricsSource {
  metrics(): Promise<string>;
  readonly contentType: string;
}

/** The app's health right now: an HTTP status (200 healthy, 503 not) and a JSON body that says why. */
export type HealthCheck = () => { status: number; body: unknown };

export interface StatusServerOptions {
  host: string;
  /** 0 picks a free port (tests); the chosen one is in StatusServer.port. */
  port: number;
  metrics: MetricsSource;
  health: HealthCheck;
}

export interface StatusServer {
  port: number;
  close(): Promise<void>;
}

export function handle(o: Pick<StatusServerOptions, 'metrics' | 'health'>): http.RequestListener {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
    } else if (path === '/metrics') {
      o.metrics.metrics().then(
        (body) => res.writeHead(200, { 'content-type': o.metrics.contentType }).end(body),
        (error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
      );
    } else if (path === '/healthz') {
      const { status, body } = o.health();
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(`${JSON.stringify(body)}\n`);
    } else {
      res
        .writeHead(404, { 'content-type': 'text/plain' })
        .end('not found: try /metrics or /healthz\n');
    }
  };
}

/** Listens on host:port (0 = a free port) and gives the port and a close that also ends open connections; for any node:http server of an app. */
export async function listen(
  server: http.Server,
  host: string,
  port: number,
): Promise<StatusServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function startStatusServer(o: StatusServerOptions): Promise<StatusServer> {
  return listen(http.createServer(handle(o)), o.host, o.port);
}
