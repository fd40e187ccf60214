/** Classifies librdkafka errors into what the caller must do: retry, abort the transaction, stop (fenced) or fail. */

/** librdkafka error codes used by this library (src/rdkafka.h, lib/error.js). */
export const RD_CODES = {
  ERR__TRANSPORT: -195,
  ERR__MSG_TIMED_OUT: -192,
  ERR__ALL_BROKERS_DOWN: -187,
  ERR__TIMED_OUT: -185,
  ERR__QUEUE_FULL: -184,
  ERR__ASSIGN_PARTITIONS: -175,
  ERR__REVOKE_PARTITIONS: -174,
  ERR__STATE: -172,
  ERR__NO_OFFSET: -168,
  ERR__TIMED_OUT_QUEUE: -166,
  ERR__FATAL: -150,
  ERR__FENCED: -144,
  ERR__ASSIGNMENT_LOST: -142,
  ERR_UNKNOWN_TOPIC_OR_PART: 3,
  ERR_NOT_COORDINATOR: 16,
  ERR_TOPIC_ALREADY_EXISTS: 36,
  ERR_INVALID_PRODUCER_EPOCH: 47,
  ERR_PRODUCER_FENCED: 90,
} as const;

export const TX_ERROR_CLASSES = ['fenced', 'fatal', 'abortable', 'retriable'] as const;
export type TxErrorClass = (typeof TX_ERROR_CLASSES)[number];

interface RdErrorLike {
  code?: unknown;
  message?: unknown;
  isFatal?: unknown;
  isRetriable?: unknown;
  isTxnRequiresAbort?: unknown;
}

export function errorCode(e: unknown): number | null {
  const c = (e as RdErrorLike | null)?.code;
  return typeof c === 'number' ? c : null;
}

export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  const m = (e as RdErrorLike | null)?.message;
  return typeof m === 'string' ? m : String(e);
}

/**
 * What a transactional operation's error demands, following librdkafka's contract
 * (INTRODUCTION.md, "Transactional producer"): fatal errors end the producer, and a fatal
 * error caused by a newer instance with the same transactional.id is fencing, after which
 * this instance must stop for good; txn-requires-abort means abort and rewind; retriable
 * means the same call may be repeated. Unknown shapes are treated as abortable: aborting is
 * always safe, committing is not. Never throws.
 */
export function classifyTxError(e: unknown): TxErrorClass {
  const err = (e ?? {}) as RdErrorLike;
  const code = errorCode(e);
  const fatal = err.isFatal === true || code === RD_CODES.ERR__FATAL;
  if (code === RD_CODES.ERR__FENCED || code === RD_CODES.ERR_PRODUCER_FENCED) return 'fenced';
  if (fatal) {
    return code === RD_CODES.ERR_INVALID_PRODUCER_EPOCH || /fenced/i.test(errorMessage(e))
      ? 'fenced'
      : 'fatal';
  }
  if (err.isTxnRequiresAbort === true) return 'abortable';
  // An old epoch without librdkafka's flags: assume a newer instance took over (stopping is safe).
  if (code === RD_CODES.ERR_INVALID_PRODUCER_EPOCH) return 'fenced';
  if (err.isRetriable === true) return 'retriable';
  return 'abortable';
}

/** A short, loggable description of an error. Never throws. */
export function describeError(e: unknown): { code: number | null; message: string } {
  return { code: errorCode(e), message: errorMessage(e) };
}
