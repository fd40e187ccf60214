/**
 * The collector's HTTP front door (node:http): routes, CORS, bounded body reading (gzip included),
 * and the answer for each request. Parsing is records.ts, the acknowledgement rule is ingest.ts.
 */

import * as http from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { gunzip } from 'node:zlib';
import { HEADERS } from '@clickstream/contracts';
import { REFUSALS, refused, type Refused } from './errors';
import type { IngestResult, Ingestor } from './ingest';
import { parseBody, parseJson, type BodyLimits, type ParseResult } from './records';

export interface Logger {
  info(o: object, msg?: string): void;
  warn(o: object, msg?: string): void;
}

export interface ServerLimits extends BodyLimits {
  /** Largest body, compressed and after gunzip. */
  maxBodyBytes: number;
  /** Largest request head (request line + headers), bytes. */
  maxHeaderBytes: number;
  /** A client must send its whole request within this (slow clients are cut off with 408). */
  requestTimeoutMs: number;
  /** Idle keep-alive connections are closed after this. */
  keepAliveTimeoutMs: number;
}

/**
 * Why the server closed a connection other than after an answer (or saw it reset): the closed list
 * behind collector_connections_closed_total, so that a client's reset can be traced to its cause.
 */
export const CONNECTION_CLOSES = [
  /** A keep-alive connection idle past --keep-alive-timeout-ms (plus Node's 1 s grace). */
  'idle',
  /** A request not received in full within --request-timeout-ms (408, the slow-client cut-off). */
  'request_timeout',
  /** A request head above --max-header-bytes (431). */
  'headers_too_large',
  /** Bytes that are not HTTP/1.1 (400). */
  'bad_request',
  /** The client reset the connection while its request was being read. */
  'client_reset',
] as const;
export type ConnectionClose = (typeof CONNECTION_CLOSES)[number];

export interface RequestHooks {
  /** Once per answered request; must not throw. */
  onResponse?(route: string, status: number, seconds: number, refusal: string | null): void;
  /** Once per connection the server closes without an answer (see CONNECTION_CLOSES); must not throw. */
  onConnectionClosed?(reason: ConnectionClose): void;
}

export interface CollectorServerOptions {
  ingestor: Pick<Ingestor, 'ingest'>;
  limits: ServerLimits;
  /** '*' or a comma-separated list of allowed origins. */
  corsOrigins: string;
  retryAfterSeconds: number;
  logger: Logger;
  hooks?: RequestHooks;
}

const ALLOWED_HEADERS = ['Content-Type', 'Content-Encoding', HEADERS.seq, HEADERS.runId].join(', ');

type Answer = { status: number; body: unknown; headers?: Record<string, string> };

function corsHeaders(origins: string, origin: string | undefined): Record<string, string> {
  if (origins === '*') return { 'Access-Control-Allow-Origin': '*' };
  if (
    origin !== undefined &&
    origins
      .split(',')
      .map((o) => o.trim())
      .includes(origin)
  )
    return { 'Access-Control-Allow-Origin': origin, Vary: 'Origin' };
  return {};
}

/** Reads the body up to maxBytes; resolves a Refused when it is larger. */
function readBody(req: http.IncomingMessage, maxBytes: number): Promise<Buffer | Refused> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes)
    return Promise.resolve(
      refused(
        'body_too_large',
        `Content-Length ${declared} is above the limit of ${maxBytes} bytes`,
      ),
    );
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > maxBytes) {
        done = true;
        resolve(refused('body_too_large', `the body is above the limit of ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!done) resolve(Buffer.concat(chunks, size));
      done = true;
    });
    req.on('error', (err) => {
      if (!done) reject(err);
      done = true;
    });
  });
}

function inflate(body: Buffer, encoding: string, maxBytes: number): Promise<Buffer | Refused> {
  if (encoding === '' || encoding === 'identity') return Promise.resolve(body);
  if (encoding !== 'gzip')
    return Promise.resolve(
      refused(
        'bad_encoding',
        `Content-Encoding ${JSON.stringify(encoding)} is not supported (gzip or identity)`,
      ),
    );
  return new Promise((resolve) => {
    gunzip(body, { maxOutputLength: maxBytes }, (err, out) => {
      if (!err) return resolve(out);
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
        return resolve(
          refused('body_too_large', `the body inflates to more than ${maxBytes} bytes`),
        );
      resolve(
        refused(
          'bad_encoding',
          `Content-Encoding gzip but the body does not inflate: ${err.message}`,
        ),
      );
    });
  });
}

function header(req: http.IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export function createHandler(o: CollectorServerOptions): http.RequestListener {
  const refusal = (r: Refused): Answer => {
    const status = REFUSALS[r.refusal];
    return {
      status,
      body: { error: r.refusal, detail: r.error },
      headers: status === 503 ? { 'Retry-After': String(o.retryAfterSeconds) } : {},
    };
  };

  const ingestParsed = async (parsed: ParseResult, beacon: boolean): Promise<Answer> => {
    if (!parsed.ok) return refusal(parsed);
    const result: IngestResult = await o.ingestor.ingest(parsed.records);
    if (!result.ok) return refusal(result);
    if (beacon) return { status: 204, body: null };
    return {
      status: 200,
      body: {
        accepted: parsed.records.length,
        placements: result.placements.map((p) => [p.partition, p.offset]),
      },
    };
  };

  const postEvents = async (req: http.IncomingMessage, beacon: boolean): Promise<Answer> => {
    const raw = await readBody(req, o.limits.maxBodyBytes);
    if (!Buffer.isBuffer(raw)) return refusal(raw);
    const body = await inflate(
      raw,
      (header(req, 'content-encoding') ?? '').trim().toLowerCase(),
      o.limits.maxBodyBytes,
    );
    if (!Buffer.isBuffer(body)) return refusal(body);
    const parsed = parseBody(header(req, 'content-type') ?? '', body, o.limits, {
      seq: header(req, HEADERS.seq),
      runId: header(req, HEADERS.runId),
    });
    return ingestParsed(parsed, beacon);
  };

  const getBeacon = (url: URL): Promise<Answer> => {
    const e = url.searchParams.get('e');
    if (e === null || e === '')
      return Promise.resolve(
        refusal(
          refused('no_events', 'a beacon GET needs the events as JSON in the query parameter e'),
        ),
      );
    return ingestParsed(parseJson(e, o.limits), true);
  };

  const route = async (req: http.IncomingMessage, url: URL): Promise<Answer> => {
    const path = url.pathname;
    if (path !== '/v1/events' && path !== '/v1/beacon')
      return refusal(
        refused('not_found', `no route ${path}: POST /v1/events, POST or GET /v1/beacon`),
      );
    if (req.method === 'OPTIONS')
      return {
        status: 204,
        body: null,
        headers: {
          'Access-Control-Allow-Methods': 'POST, GET, OPTIONS',
          'Access-Control-Allow-Headers': ALLOWED_HEADERS,
          'Access-Control-Max-Age': '600',
        },
      };
    if (req.method === 'POST') return postEvents(req, path === '/v1/beacon');
    if (req.method === 'GET' && path === '/v1/beacon') return getBeacon(url);
    return refusal(refused('method_not_allowed', `${req.method ?? '?'} ${path} is not allowed`));
  };

  return (req, res) => {
    const started = process.hrtime.bigint();
    const url = new URL(req.url ?? '/', 'http://collector');
    const routeName =
      url.pathname === '/v1/events' || url.pathname === '/v1/beacon' ? url.pathname : 'other';
    const send = (a: Answer): void => {
      const headers: Record<string, string> = {
        ...corsHeaders(o.corsOrigins, header(req, 'origin')),
        ...a.headers,
      };
      const text = a.body === null ? '' : JSON.stringify(a.body);
      if (text !== '') headers['Content-Type'] = 'application/json';
      // A request whose body was not read to the end leaves the connection unusable: close it.
      if (!req.complete) headers.Connection = 'close';
      res.writeHead(a.status, headers).end(text);
      const refusalName =
        a.status >= 400 && a.body !== null && typeof a.body === 'object'
          ? String((a.body as { error?: unknown }).error)
          : null;
      o.hooks?.onResponse?.(
        routeName,
        a.status,
        Number(process.hrtime.bigint() - started) / 1e9,
        refusalName,
      );
    };
    route(req, url).then(send, (err: unknown) => {
      o.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'request failed');
      if (!res.headersSent)
        send({
          status: 500,
          body: { error: 'internal', detail: 'the collector failed on this request' },
        });
    });
  };
}

const CLIENT_ERROR_ANSWERS: Partial<Record<ConnectionClose, string>> = {
  request_timeout: 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n',
  headers_too_large: 'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n',
  bad_request: 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n',
};

function clientErrorReason(code: string | undefined): ConnectionClose {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'request_timeout';
  if (code === 'HPE_HEADER_OVERFLOW') return 'headers_too_large';
  if (code === 'ECONNRESET') return 'client_reset';
  return 'bad_request';
}

/**
 * Node's own handling of connection-level errors and idle keep-alive connections, counted. Node
 * answers a client error only when no answer has started on the connection (else it would corrupt
 * it), then destroys the socket; an idle connection is destroyed. These listeners do the same and
 * name the reason, which is how a reset seen by a client is traced to a slow-client limit or to a
 * keep-alive race rather than guessed.
 */
function countConnectionCloses(server: http.Server, hooks: RequestHooks | undefined): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const reason = clientErrorReason(err.code);
    hooks?.onConnectionClosed?.(reason);
    // Node's rule (lib/_http_server.js socketOnError): no status line once an answer has begun.
    const answering = (socket as unknown as { _httpMessage?: http.ServerResponse | null })
      ._httpMessage;
    const text = CLIENT_ERROR_ANSWERS[reason];
    if (text !== undefined && socket.writable && (!answering || !answering.headersSent))
      socket.write(text);
    socket.destroy();
  });
  // Emitted only for the keep-alive idle timer: server.timeout stays 0 (no socket timeout otherwise).
  // Timers run before I/O in each turn of the event loop: after a stall (a busy or starved
  // process), the idle timer fires while the next request's bytes already wait in the socket, and
  // closing then resets the client's request. So the close waits one turn, in which those bytes
  // are read; a connection that received anything is left to Node, which re-arms its timers.
  server.on('timeout', (socket: Socket) => {
    const bytesRead = socket.bytesRead;
    setImmediate(() => {
      if (socket.destroyed || socket.bytesRead !== bytesRead) return;
      hooks?.onConnectionClosed?.('idle');
      socket.destroy();
    });
  });
}

export interface CollectorServer {
  port: number;
  /** Stops accepting connections and waits for the requests being answered. */
  close(): Promise<void>;
}

export async function startCollectorServer(
  o: CollectorServerOptions & { host: string; port: number },
): Promise<CollectorServer> {
  const server = http.createServer(
    {
      maxHeaderSize: o.limits.maxHeaderBytes,
      requestTimeout: o.limits.requestTimeoutMs,
      headersTimeout: Math.min(o.limits.requestTimeoutMs, 10_000),
      keepAliveTimeout: o.limits.keepAliveTimeoutMs,
      // How often Node checks requestTimeout (default 30 s): a slow client is cut off near its deadline.
      connectionsCheckingInterval: Math.max(
        50,
        Math.min(1000, Math.floor(o.limits.requestTimeoutMs / 4)),
      ),
    },
    createHandler(o),
  );
  countConnectionCloses(server, o.hooks);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : o.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
