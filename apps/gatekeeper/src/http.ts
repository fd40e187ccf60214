/** The gatekeeper's HTTP face: /metrics for Prometheus and /healthz for supervisors and tests. */

import * as http from 'http';
import type { AddressInfo } from 'net';
import type { Registry } from 'prom-client';

export type Phase = 'starting' | 'running' | 'stuck' | 'stopping' | 'stopped' | 'fenced' | 'failed';

/** What /healthz reports; mutated by run() as the loop progresses. */
export interface Health {
  phase: Phase;
  instanceId: string;
  transactionalId: string;
  startedAt: number;
  lastCommitAt: number | null;
  /** When the batch in flight was collected; null between transactions. */
  inFlightSince: number | null;
  commits: number;
  aborts: number;
  loopRestarts: number;
}

export interface StatusServer {
  port: number;
  close(): Promise<void>;
}

/** Healthy while the loop may still make progress; 503 once it is stuck, has stopped, been fenced or failed. */
export function healthStatus(health: Health): number {
  return health.phase === 'starting' || health.phase === 'running' ? 200 : 503;
}

export async function startStatusServer(
  host: string,
  port: number,
  registry: Registry,
  health: Health,
): Promise<StatusServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
    } else if (path === '/metrics') {
      registry.metrics().then(
        (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
        (error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
      );
    } else if (path === '/healthz') {
      res
        .writeHead(healthStatus(health), { 'content-type': 'application/json' })
        .end(JSON.stringify(health));
    } else {
      res
        .writeHead(404, { 'content-type': 'text/plain' })
        .end('not found: try /metrics or /healthz\n');
    }
  });
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
