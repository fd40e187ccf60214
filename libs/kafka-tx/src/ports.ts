/** The small client interfaces the pure loops drive, so that unit specs can run them without a server. */
import { setTimeout as sleepFor } from 'node:timers/promises';
import type { InRecord, OutRecord } from './types';

export interface TopicPartition {
  topic: string;
  partition: number;
}

export interface TopicPartitionOffset extends TopicPartition {
  offset: number;
}

/** A group consumer whose rebalances are queued until the loop applies them at a safe point. */
export interface LoopConsumer {
  /** Up to max records, waiting at most timeoutMs for the first; [] on a non-fatal consumer error. Rejects on a fatal one. */
  consume(max: number, timeoutMs: number): Promise<InRecord[]>;
  /** True when a rebalance (assign or revoke) is waiting for applyRebalances(). */
  rebalancePending(): boolean;
  /** Applies the queued rebalances (assign / unassign), oldest first. Called only with no transaction open. */
  applyRebalances(): void;
  /** Moves the fetch positions back; rejects if any partition could not be moved. */
  seek(positions: TopicPartitionOffset[]): Promise<void>;
  /** The group's committed offsets of these partitions (offset < 0: none); rejects on failure. */
  committed(partitions: TopicPartition[]): Promise<TopicPartitionOffset[]>;
  /** Requests an offset commit outside a transaction (at-least-once mode); its outcome is logged when the broker answers. */
  commitAsync(offsets: TopicPartitionOffset[]): void;
  /** Commits and waits for the broker's answer (used once, at shutdown); rejects on failure. */
  commitSync(offsets: TopicPartitionOffset[]): Promise<void>;
  close(): Promise<void>;
}

/** A transactional producer bound to the consumer whose group metadata its offsets are sent with. */
export interface TxProducer {
  init(): Promise<void>;
  begin(): Promise<void>;
  /** Enqueues the records in the open transaction (waits for queue space if needed). */
  produce(records: OutRecord[]): Promise<void>;
  sendOffsets(offsets: TopicPartitionOffset[]): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
  close(): Promise<void>;
}

/** Time and sleeping, injected so that specs run instantly. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  // An abort ends the sleep early, never with an error.
  sleep: (ms, signal) => sleepFor(ms, undefined, { signal }).catch(() => undefined),
};
