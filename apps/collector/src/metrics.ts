/** The collector's Prometheus metrics (prom-client): requests by route and status, events by Kafka outcome, in-flight events. */

import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { IngestHooks } from './ingest';
import type { RequestHooks } from './server';

export interface CollectorMetrics {
  ingest: IngestHooks;
  requests: RequestHooks;
  /** The gauge reads the in-flight count at each scrape. */
  attach(inFlight: () => number): void;
}

export function createMetrics(registry: Registry): CollectorMetrics {
  const registers = [registry];
  const requests = new Counter({
    name: 'collector_requests_total',
    help: 'Answered requests by route and HTTP status',
    labelNames: ['route', 'status'],
    registers,
  });
  const refusals = new Counter({
    name: 'collector_refusals_total',
    help: 'Requests answered with an error, by reason (503s: kafka_unavailable, backpressure, ack_timeout)',
    labelNames: ['reason'],
    registers,
  });
  const duration = new Histogram({
    name: 'collector_request_duration_seconds',
    help: 'Request received to answered, including waiting for Kafka acknowledgements',
    labelNames: ['route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const closed = new Counter({
    name: 'collector_connections_closed_total',
    help: 'Connections closed by the server without an answer, by reason (idle keep-alive, request_timeout = slow client, headers_too_large, bad_request, client_reset)',
    labelNames: ['reason'],
    registers,
  });
  const events = new Counter({
    name: 'collector_events_total',
    help: 'Events of requests handed to Kafka, by outcome (acked = answered 2xx)',
    labelNames: ['outcome'],
    registers,
  });
  return {
    ingest: { onOutcome: (outcome, n) => events.inc({ outcome }, n) },
    requests: {
      onResponse(route, status, seconds, refusal) {
        requests.inc({ route, status: String(status) });
        duration.observe({ route }, seconds);
        if (refusal !== null) refusals.inc({ reason: refusal });
      },
      onConnectionClosed: (reason) => closed.inc({ reason }),
    },
    attach(inFlight) {
      new Gauge({
        name: 'collector_in_flight_events',
        help: 'Events handed to Kafka whose delivery reports have not all arrived',
        registers,
        collect() {
          this.set(inFlight());
        },
      });
    },
  };
}
