/** Reconciler entry point: wires config, logger, the ledger reader and the layer clients, then runs one reconciliation. */

import * as fs from 'fs';
import * as path from 'path';
import pino from 'pino';
import type { KafkaClientOptions } from '@clickstream/kafka-tx';
import { readManifest } from '@clickstream/ledger';
import { createWarehouse, type Warehouse } from '@clickstream/warehouse';
import { configOrExit } from '@clickstream/cli-config';
import { loadConfig, usage } from './config';
import { kafkaTopicSource } from './adapters/kafka';
import { readLedgerIndex } from './adapters/ledger';
import { SecondThread } from './adapters/second-thread';
import { EXIT, run } from './run';

async function main(): Promise<number> {
  const start = configOrExit('reconciler', loadConfig, usage, {
    hint: ' (see --help)',
    codes: { help: EXIT.exact, config: EXIT.usage },
  });
  if ('exit' in start) return start.exit;
  const { config } = start;
  // stdout carries the table; logs go to stderr.
  const logger = pino({ name: 'reconciler', level: config.logLevel }, pino.destination(2));
  process.once('SIGTERM', () => {
    logger.warn({}, 'SIGTERM: stopping without a report');
    process.exit(143);
  });
  const kafkaClient: KafkaClientOptions = {
    bootstrap: config.bootstrap,
    clientId: config.clientId,
    logger: logger.child({ module: 'kafka' }),
  };
  let warehouse: Warehouse | null = null;
  try {
    const result = await run({
      config,
      logger,
      ledger: {
        index: readLedgerIndex,
        manifest: (file) => (fs.existsSync(file) ? readManifest(file) : null),
      },
      kafka: (start) => kafkaTopicSource(kafkaClient, start, config.kafkaReaderPath ?? undefined),
      sql: () => {
        warehouse = createWarehouse({
          url: config.clickhouseUrl,
          database: config.clickhouseDatabase,
          logger: logger.child({ module: 'clickhouse' }),
        });
        return warehouse;
      },
      secondThread: (request, ledgerEventIds) =>
        new SecondThread(path.join(__dirname, 'second-thread-worker.js'), {
          setup: {
            clickhouseUrl: config.clickhouseUrl,
            clickhouseDatabase: config.clickhouseDatabase,
            logLevel: config.logLevel,
          },
          request,
          ledgerEventIds,
        }),
      print: (text) => process.stdout.write(`${text}\n`),
    });
    process.stderr.write(`reconciler: ${result.message}\n`);
    return result.exitCode;
  } catch (err) {
    logger.error({ err }, 'reconciliation failed');
    process.stderr.write(
      `reconciler: failed: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    return EXIT.failure;
  } finally {
    await (warehouse as Warehouse | null)?.close();
  }
}

main().then(
  (code) => {
    // A client library may keep a socket or timer alive after its work is done: a one-shot CLI exits.
    process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(
      `reconciler: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exitCode = EXIT.failure;
  },
);
