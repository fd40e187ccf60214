/** Public types of @clickstream/kafka-tx: client options, records, delivery reports, loop and consumer options. */

/** A pino-compatible logger, injected by the caller; the library never creates one. */
export interface Logger {
  debug(o: object, msg?: string): void;
  info(o: object, msg?: string): void;
  warn(o: object, msg?: string): void;
  error(o: object, msg?: string): void;
  child?(bindings: object): Logger;
}

export type Isolation = 'read_committed' | 'read_uncommitted';

/** How to reach the cluster; the timeouts default to the tested values in settings.ts (DEFAULT_TIMEOUTS). */
export interface KafkaClientOptions {
  /** Comma-separated host:port list. */
  bootstrap: string;
  clientId: string;
  /** librdkafka socket.connection.setup.timeout.ms (TCP + SSL/SASL connect to one broker). */
  connectTimeoutMs?: number;
  /** Request timeouts (producer request.timeout.ms, admin/offset/metadata calls). */
  requestTimeoutMs?: number;
  /** librdkafka socket.timeout.ms (one network request on an established connection). */
  socketTimeoutMs?: number;
  /** Consumer group session.timeout.ms. */
  sessionTimeoutMs?: number;
  /** Producer transaction.timeout.ms: the coordinator aborts an open transaction older than this. */
  transactionTimeoutMs?: number;
  /**
   * Producer linger.ms: how long a partition's batch waits for more records before it is sent.
   * Default 50 (DEFAULT_LINGER_MS); a producer whose caller waits on each ack (an HTTP request) sets it lower.
   */
  lingerMs?: number;
  logger: Logger;
}

/** A consumed record. Headers with repeated keys keep the last value. */
export interface InRecord {
  topic: string;
  partition: number;
  offset: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer>;
  /** Kafka record timestamp, ms since epoch. */
  timestamp: number;
}

/** A record to produce. Without a partition, the key decides (librdkafka's consistent_random partitioner). */
export interface OutRecord {
  topic: string;
  partition?: number;
  key: Buffer | string | null;
  value: Buffer | null;
  headers?: Record<string, Buffer | string>;
  timestamp?: number;
}

/** The outcome of one produced record: a value, never an exception. */
export interface DeliveryReport {
  ok: boolean;
  topic: string;
  partition: number | null;
  /** Null for a failure, and for a success whose offset the client did not learn (see toDeliveryReport). */
  offset: number | null;
  error: string | null;
}

export interface IdempotentProducer {
  /** Produces every record and resolves when each has a delivery report, in input order; never rejects for a per-record failure. */
  send(records: OutRecord[]): Promise<DeliveryReport[]>;
  /** Waits until every outstanding record has a delivery report. */
  flush(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Metrics seam: called synchronously by the loop; must not throw. */
export interface LoopHooks {
  onRecordsIn?(n: number): void;
  onRecordsOut?(n: number): void;
  /** A transaction committed: its duration (begin to commit done) and its input record count. */
  onCommit?(ms: number, records: number): void;
  onAbort?(error: unknown): void;
  onFenced?(): void;
}

export interface TransactionalLoopOptions {
  client: KafkaClientOptions;
  groupId: string;
  /** Unique per logical instance (e.g. per replica slot); a newer producer with the same id fences the older one. */
  transactionalId: string;
  inputTopics: string[];
  /** Maps one batch of input records to the output records of the same transaction. Throwing aborts and retries the batch. */
  transform(batch: InRecord[]): OutRecord[] | Promise<OutRecord[]>;
  /** Maximum input records per transaction (default 500). */
  maxBatchRecords?: number;
  /** Maximum time a batch stays open collecting records, ms (default 100). */
  maxBatchMs?: number;
  hooks?: LoopHooks;
  /** Abort to stop: the open transaction is committed if its batch is complete, else aborted. */
  signal?: AbortSignal;
}

export interface LoopResult {
  reason: 'stopped' | 'fenced';
}

export interface AtLeastOnceOptions {
  client: KafkaClientOptions;
  groupId: string;
  topics: string[];
  /** Handles (e.g. writes to a sink) one batch; offsets are committed only after it resolves. */
  onBatch(records: InRecord[]): Promise<void>;
  /** Maximum records per batch (default 5000). */
  maxBatchRecords?: number;
  /** Flush a non-empty batch after this long even when the topic is quiet, ms (default 1000). */
  maxBatchMs?: number;
  /** Attempts of onBatch per batch before the error propagates (default 5; backoff doubles from 200 ms). */
  maxAttempts?: number;
  /** Where a group with no committed offset starts (default 'earliest'). */
  startFrom?: 'earliest' | 'latest';
  isolation?: Isolation;
  signal?: AbortSignal;
  hooks?: {
    onFlush?(ms: number, records: number): void;
    onRetry?(attempt: number, error: unknown): void;
  };
}

export interface TopicSpec {
  topic: string;
  partitions: number;
  /** Defaults to 3 (the local cluster). */
  replicationFactor?: number;
  config?: Record<string, string>;
}
