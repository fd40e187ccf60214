/** Experiment harness entry point: parse the command, build logger and clients, run the experiment (or the docs generator); an interrupt restores any fault in place. */

import * as fs from 'fs';
import * as path from 'path';
import type { ChildProcess } from 'child_process';
import pino from 'pino';
import { createWarehouse, readRunIngestTimes } from '@clickstream/warehouse';
import { kafkaNetMismatch } from './catalogue';
import { ConfigError, loadCommand, usage } from './config';
import { generateDocs } from './docs/generate';
import { refreshGoalsSection, writeGoal } from './docs/goals';
import { stack } from './faults';
import { runLadder } from './ladder';
import { prometheusClient } from './prometheus';
import { runFaultExperiment, type RunDeps } from './run';

/** Exit codes: 0 every run exact (or docs written), 1 a run not exact, 2 bad configuration, 70 the harness failed. */
const EXIT = { ok: 0, inexact: 1, config: 2, failure: 70 } as const;

const REPO_ROOT = path.resolve(__dirname, '../../..');

function ports(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of fs
    .readFileSync(path.join(REPO_ROOT, 'infra/local/ports.env'), 'utf8')
    .split('\n')) {
    const m = /^([A-Z0-9_]+)=(\d+)$/.exec(line.trim());
    if (m) out[m[1] as string] = Number(m[2]);
  }
  return out;
}

async function main(): Promise<number> {
  let cmd;
  try {
    cmd = loadCommand();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`experiment: ${error.message} (see --help)\n`);
    return EXIT.config;
  }
  if (cmd.help) {
    process.stdout.write(`${usage()}\n`);
    return EXIT.ok;
  }
  const { flags } = cmd;
  const resultsDir = path.resolve(REPO_ROOT, flags.resultsDir);
  const logger = pino({ level: flags.logLevel, base: { app: 'experiment' } });
  if (cmd.command === 'docs') {
    const r = await generateDocs({
      resultsDir,
      repoRoot: REPO_ROOT,
      docsFile: path.resolve(REPO_ROOT, flags.docsFile),
    });
    logger.info(
      { sections: r.sections, plots: r.plots.map((p) => path.relative(REPO_ROOT, p)) },
      'docs written',
    );
    return EXIT.ok;
  }
  if (cmd.command === 'goal') {
    const file = path.join(resultsDir, 'bench', 'goals.json');
    const { key, value, measuredBy } = cmd.goal;
    writeGoal(file, key, {
      value,
      command: measuredBy,
      measured_at: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    });
    const docsFile = path.resolve(REPO_ROOT, flags.docsFile);
    refreshGoalsSection(file, docsFile);
    logger.info(
      {
        key,
        value,
        file: path.relative(REPO_ROOT, file),
        docs: path.relative(REPO_ROOT, docsFile),
      },
      'goal written',
    );
    return EXIT.ok;
  }
  const p = ports();
  const warehouse = createWarehouse({
    url: flags.clickhouseUrl,
    database: flags.database,
    logger: logger.child({ module: 'warehouse' }),
  });
  let pendingRestore: (() => Promise<void>) | null = null;
  let child: ChildProcess | null = null;
  const deps: RunDeps = {
    repoRoot: REPO_ROOT,
    bootstrap: flags.bootstrap,
    resultsDir,
    pagesFile: path.join(resultsDir, 'pages', 'pages.jsonl'),
    prom: prometheusClient(flags.prometheusUrl),
    probeSelector: `instance="127.0.0.1:${p.PROBE_METRICS_PORT ?? 9401}"`,
    healthPorts: {
      gatekeeper: p.GATEKEEPER_METRICS_PORT ?? 9400,
      loader: p.LOADER_METRICS_PORT ?? 9402,
    },
    log: (msg, data) => logger.info(data ?? {}, msg),
    logger,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    setPendingRestore: (r) => (pendingRestore = r),
    setChild: (c) => (child = c),
    ingestTimes: (runId) => readRunIngestTimes(warehouse, runId),
  };
  // An interrupted run must not leave a broker frozen, cut off or dead: restore, stop the load, exit.
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      logger.warn({ signal: sig }, 'interrupted: restoring the fault and stopping the load');
      (child as ChildProcess | null)?.kill('SIGTERM');
      const restore = pendingRestore as (() => Promise<void>) | null;
      void (restore ? restore() : Promise.resolve()).finally(() => process.exit(130));
    });
  }
  const e = cmd.experiment;
  const mismatch = kafkaNetMismatch(e, await stack(deps, 'net'));
  if (mismatch !== null) {
    process.stderr.write(`experiment: ${mismatch}\n`);
    return EXIT.config;
  }
  const seed0 = flags.seed ?? 1 + Math.floor(Math.random() * 1_000_000);
  let allExact = true;
  for (let k = 1; k <= flags.repeat; k++) {
    if (e.kind === 'ladder') {
      const r = await runLadder(deps, e, seed0 + k - 1, k, flags.repeat);
      allExact &&= r.rungs.every((g) => g.reconcile?.verdict === 'exact');
    } else {
      const r = await runFaultExperiment(deps, {
        experiment: e,
        seed: seed0 + k - 1,
        repeat: k,
        of: flags.repeat,
      });
      allExact &&= r.figures.reconcile?.verdict === 'exact';
    }
  }
  return allExact ? EXIT.ok : EXIT.inexact;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`experiment: fatal: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(EXIT.failure);
  },
);
