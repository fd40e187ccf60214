/** Generator entry point: parse config, build the logger and the sink, run, handle SIGTERM, print a one-line JSON summary. */

import { createIdempotentProducer, topicExists } from '@clickstream/kafka-tx';
import { configOrExit } from '@clickstream/cli-config';
import { loadConfig, usage } from './config';
import { httpSink } from './http-sink';
import { kafkaSink } from './kafka-sink';
import { run } from './run';
import { createOutput } from './terminal';
import { drySink, type Sink } from './sink';

/** Exit codes (README): 0 done (or stopped by SIGTERM/SIGINT after writing the ledger, or --help), 1 failure, 2 bad configuration. */
const EXIT = { ok: 0, failure: 1, config: 2 } as const;

async function main(): Promise<number> {
  const start = configOrExit('generator', loadConfig, usage, { hint: '\n(see --help)' });
  if ('exit' in start) return start.exit;
  const { run: options, dryRun, via, collectorUrl, logLevel, logFormat } = start.config;
  // Logs and progress go to stderr so that stdout carries only the final JSON summary line.
  const output = createOutput(logFormat, logLevel);
  const logger = output.logger;

  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    logger.info({ signal }, 'stopping: no new sends; flushing and writing the ledger');
    stop.abort();
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);

  let sink: Sink;
  if (dryRun) {
    sink = drySink();
  } else if (via === 'http') {
    // 1000 events per request is the collector's default --max-events; 15 s outlasts its 10 s ack timeout.
    sink = httpSink({ url: collectorUrl, maxPerRequest: 1000, timeoutMs: 15_000 });
  } else {
    // The brokers create no topic on demand (docs/KAFKA.md), and librdkafka would hold each send until its wait for
    // the topic ran out (topic.metadata.propagation.max.ms, 30 s): a missing --topic is a configuration error.
    const client = {
      bootstrap: options.bootstrap ?? '',
      clientId: 'generator-topic-check',
      logger,
    };
    if (!(await topicExists(client, options.topic))) {
      process.stderr.write(
        `generator: --topic ${options.topic}: no such topic on ${client.bootstrap}; create it first (the stack's own topics: bash infra/local/stack.sh up)\n`,
      );
      return EXIT.config;
    }
    const producer = await createIdempotentProducer({
      bootstrap: options.bootstrap ?? '',
      clientId: `generator-${options.runId}`,
      logger: logger.child({ module: 'kafka-tx' }),
    });
    sink = kafkaSink(producer, options.topic);
  }
  try {
    const summary = await run({
      options,
      sink,
      logger: logger.child({ module: 'run' }),
      clock: Date.now,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      signal: stop.signal,
      progress:
        output.progress === undefined
          ? undefined
          : { report: output.progress, everyMs: output.progressEveryMs },
    });
    output.done();
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  } finally {
    await sink.close();
  }
  return EXIT.ok;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(
      `generator: fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exitCode = EXIT.failure;
  },
);
