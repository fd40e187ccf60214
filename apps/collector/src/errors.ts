/** The closed list of reasons the collector refuses a request, with the HTTP status each one answers. */

export const REFUSALS = {
  /** The body is larger than --max-body-bytes (before or after gunzip). */
  body_too_large: 413,
  /** More events in one request than --max-events. */
  too_many_events: 413,
  /** The body is neither JSON nor Avro single-object encoding (nor frames). */
  not_json_or_avro: 400,
  /** Content-Type says JSON (or text/plain for beacons) but the body does not parse. */
  bad_json: 400,
  /** A framed body whose frames do not add up. */
  bad_frames: 400,
  /** Content-Encoding other than identity/gzip, or a gzip stream that does not inflate. */
  bad_encoding: 400,
  /** A beacon GET without the `e` query parameter, or an empty body. */
  no_events: 400,
  /** Content-Type the collector does not read. */
  unsupported_media_type: 415,
  /** A cs-seq / cs-run-id request header that is not well formed. */
  bad_header: 400,
  /** Kafka is not taking the events (a delivery report failed): retry later. */
  kafka_unavailable: 503,
  /** More events are waiting for Kafka than --max-in-flight-events: retry later. */
  backpressure: 503,
  /** Not every delivery report arrived within --ack-timeout-ms: outcome unknown, retry later. */
  ack_timeout: 503,
  not_found: 404,
  method_not_allowed: 405,
} as const;

export type Refusal = keyof typeof REFUSALS;

/** A refusal as a value: the status comes from the registry, the error text is specific. */
export interface Refused {
  ok: false;
  refusal: Refusal;
  error: string;
}

export function refused(refusal: Refusal, error: string): Refused {
  return { ok: false, refusal, error };
}
