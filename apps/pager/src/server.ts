/** The pager's HTTP face: POST /alerts records a notification; everything else is the status server's. */

import { appendFile, mkdir } from 'node:fs/promises';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { handle, type HealthCheck, type MetricsSource } from '@clickstream/status-server';
import { pageLine, type PageLine } from './page';

export interface Logger {
  info(o: object, msg?: string): void;
  warn(o: object, msg?: string): void;
  error(o: object, msg?: string): void;
}

export interface PagerDeps {
  host: string;
  port: number;
  pagesDir: string;
  logger: Logger;
  metrics: MetricsSource;
  health: HealthCheck;
  clock: () => number;
  /** Called after a line is durably appended (metrics). */
  onPage?(line: PageLine): void;
}

export interface Pager {
  port: number;
  pagesFile: string;
  close(): Promise<void>;
}

/** Alertmanager bodies are a few kB; anything far larger is not a notification. */
const MAX_BODY_BYTES = 1 << 20;

function readBody(req: http.IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on('end', () =>
      resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks).toString('utf8')),
    );
    req.on('error', reject);
  });
}

export async function startPager(d: PagerDeps): Promise<Pager> {
  await mkdir(d.pagesDir, { recursive: true });
  const pagesFile = path.join(d.pagesDir, 'pages.jsonl');
  const status = handle({ metrics: d.metrics, health: d.health });
  // Appends are chained so that concurrent notifications never interleave within the file.
  let appending: Promise<void> = Promise.resolve();

  async function record(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const receivedMs = d.clock();
    const text = await readBody(req);
    let body: unknown = undefined;
    try {
      body = text === null ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    const parsed = pageLine(body, receivedMs);
    if (!parsed.ok) {
      d.logger.warn(
        { detail: text === null ? 'body too large' : parsed.detail },
        'notification rejected',
      );
      res.writeHead(400, { 'content-type': 'text/plain' }).end(`bad notification\n`);
      return;
    }
    const line = parsed.line;
    appending = appending.then(() => appendFile(pagesFile, `${JSON.stringify(line)}\n`));
    await appending;
    d.onPage?.(line);
    d.logger.info(
      {
        status: line.status,
        alerts: line.alerts.map((a) => `${a.alertname}:${a.status}`),
        groupKey: line.group_key,
        file: pagesFile,
      },
      'page recorded',
    );
    res.writeHead(200, { 'content-type': 'text/plain' }).end('recorded\n');
  }

  const server = http.createServer((req, res) => {
    const url = (req.url ?? '/').split('?')[0];
    if (req.method === 'POST' && url === '/alerts') {
      record(req, res).catch((error: unknown) => {
        // Alertmanager retries a failed delivery: answering 500 loses nothing.
        d.logger.error({ error: String(error) }, 'recording a page failed');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('not recorded\n');
      });
      return;
    }
    status(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(d.port, d.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    pagesFile,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
