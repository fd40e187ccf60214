/**
 * The dashboard's HTTP server: the page and its assets (Chart.js served from the installed package,
 * no CDN), the JSON API under /api/, and /metrics + /healthz through @clickstream/status-server.
 */

import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { handle, listen, type HealthCheck, type MetricsSource } from '@clickstream/status-server';
import { answer, type ApiDeps } from './api';

/** The page's own files (public/), resolved from dist/ or src/ alike. */
export const PUBLIC_DIR = path.join(__dirname, '..', 'public');

/** Chart.js' browser build, from node_modules (resolved once, at start). */
function chartJsPath(): string {
  return path.join(path.dirname(require.resolve('chart.js')), 'chart.umd.min.js');
}

interface Asset {
  file: string;
  type: string;
}

export function assets(): Record<string, Asset> {
  return {
    '/': { file: path.join(PUBLIC_DIR, 'index.html'), type: 'text/html; charset=utf-8' },
    '/assets/app.js': {
      file: path.join(PUBLIC_DIR, 'app.js'),
      type: 'text/javascript; charset=utf-8',
    },
    '/assets/app.css': { file: path.join(PUBLIC_DIR, 'app.css'), type: 'text/css; charset=utf-8' },
    '/assets/chart.umd.min.js': { file: chartJsPath(), type: 'text/javascript; charset=utf-8' },
  };
}

export interface ServerDeps {
  api: ApiDeps;
  metrics: MetricsSource;
  health: HealthCheck;
  onRequest?: (route: string, status: number) => void;
}

function send(res: http.ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    // The page loads only its own scripts: no CDN, no inline script.
    'content-security-policy':
      "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:",
    'x-content-type-options': 'nosniff',
  });
  res.end(body);
}

export function listener(d: ServerDeps): http.RequestListener {
  const files = assets();
  const status = handle({ metrics: d.metrics, health: d.health });
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://dashboard.invalid');
    const route = url.pathname;
    if (route === '/metrics' || route === '/healthz') return status(req, res);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    const asset = files[route];
    if (asset) {
      fs.readFile(asset.file, (err, body) => {
        if (err) send(res, 500, 'text/plain', `cannot read ${path.basename(asset.file)}\n`);
        else send(res, 200, asset.type, body);
        d.onRequest?.(route, err ? 500 : 200);
      });
      return;
    }
    if (route.startsWith('/api/')) {
      const endpoint = route.slice('/api/'.length);
      answer(endpoint, url.searchParams, d.api).then(
        (a) => {
          send(res, a.status, 'application/json', `${JSON.stringify(a.body)}\n`);
          d.onRequest?.(`/api/${endpoint}`, a.status);
        },
        (err: unknown) => {
          send(
            res,
            500,
            'application/json',
            `${JSON.stringify({ error: 'internal', detail: String(err) })}\n`,
          );
          d.onRequest?.(`/api/${endpoint}`, 500);
        },
      );
      return;
    }
    send(res, 404, 'text/plain', 'not found: try /, /api/config, /metrics or /healthz\n');
    d.onRequest?.('other', 404);
  };
}

export interface DashboardServer {
  port: number;
  close(): Promise<void>;
}

/** Listens on host:port (0 = any free port); rejects when the port is taken. */
export function startServer(host: string, port: number, d: ServerDeps): Promise<DashboardServer> {
  return listen(http.createServer(listener(d)), host, port);
}
