/** Tested default timeouts and the librdkafka settings derived from KafkaClientOptions. */

export const DEFAULT_TIMEOUTS = {
  connectTimeoutMs: 4000,
  requestTimeoutMs: 10000,
  socketTimeoutMs: 10000,
  sessionTimeoutMs: 10000,
  transactionTimeoutMs: 60000,
} as const;
