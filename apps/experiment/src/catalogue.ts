/** The catalogue of failure experiments and the load ladder: every experiment is data (load, fault, timings) in this one place. */

import { z } from 'zod';

/** What a fault is done to. Brokers are chosen at run time by role (controller, leader, coordinator). */
export const TARGETS = [
  'controller-broker',
  'partition-leader-broker',
  'coordinator-broker',
  'broker-2',
  'taskmanager',
  'gatekeeper',
  'loader',
  'clickhouse',
] as const;
export type Target = (typeof TARGETS)[number];

/**
 * What is done. Restoration follows from the action: sigkill of a broker/TaskManager restarts it
 * after `holdS`, sigkill of a supervised app is restored by its supervisor (the harness waits for
 * /healthz), sigstop is ended by SIGCONT after `holdS`, partition is healed after `holdS`, restart is
 * the stack runner's `restart` (stop, then start what is missing).
 */
export const ACTIONS = ['sigkill', 'sigstop', 'partition', 'restart'] as const;
export type Action = (typeof ACTIONS)[number];

const seconds = z.number().int().min(0).max(3600);

/** How the stack networks its Kafka nodes (infra/local/lib/netns.sh). */
export const KAFKA_NETS = ['loopback', 'netns'] as const;
export type KafkaNet = (typeof KAFKA_NETS)[number];

export const FaultSchema = z.object({
  action: z.enum(ACTIONS),
  target: z.enum(TARGETS),
  /** Seconds between the fault and its restoration (SIGCONT, heal, restart of a killed broker). */
  holdS: seconds,
});
export type Fault = z.infer<typeof FaultSchema>;

export const FaultExperimentSchema = z.object({
  kind: z.literal('fault'),
  name: z.string().regex(/^[a-z][a-z0-9-]*$/),
  summary: z.string().min(1),
  /** Steady seeded load, events/s. */
  rate: z.number().int().min(1).max(100_000),
  /** Healthy load before the fault. */
  baselineS: seconds.min(10),
  fault: FaultSchema,
  /** Load after the restoration, to see recovery. */
  afterS: seconds.min(10),
  /** Bound of tools/reconcile-wait after the load ends. */
  reconcileS: seconds,
  /**
   * How the Kafka nodes must be networked (`stack.sh net`): on the shared loopback, or each in a network
   * namespace of its own (KAFKA_NET=netns at `stack.sh up`). Absent: either.
   */
  kafkaNet: z.enum(KAFKA_NETS).optional(),
});
export type FaultExperiment = z.infer<typeof FaultExperimentSchema>;

export const LadderExperimentSchema = z.object({
  kind: z.literal('ladder'),
  name: z.string().regex(/^[a-z][a-z0-9-]*$/),
  summary: z.string().min(1),
  /** Rates in increasing order, events/s. */
  rungs: z.array(z.number().int().min(1).max(100_000)).min(1),
  rungS: seconds.min(10),
  reconcileS: seconds,
});
export type LadderExperiment = z.infer<typeof LadderExperimentSchema>;

export const ExperimentSchema = z.discriminatedUnion('kind', [
  FaultExperimentSchema,
  LadderExperimentSchema,
]);
export type Experiment = z.infer<typeof ExperimentSchema>;

/** The freshness SLO of docs/OBSERVABILITY.md: a probe event is queryable within 10 s. */
export const SLO_S = 10;

const BASE = { kind: 'fault', rate: 500, baselineS: 45, afterS: 90, reconcileS: 240 } as const;

export const CATALOGUE: readonly Experiment[] = [
  {
    kind: 'ladder',
    name: 'load-ladder',
    summary:
      'rates 1k..8k events/s, each rung a seeded run; stops at the first rung where valid or clean falls behind (freshness p99 over the SLO) or a layer is not exact',
    rungs: [1000, 2000, 3000, 4000, 6000, 8000],
    rungS: 180,
    reconcileS: 240,
  },
  {
    ...BASE,
    name: 'controller-kill',
    summary: 'SIGKILL of the broker that is the active KRaft controller, restarted after 30 s',
    fault: { action: 'sigkill', target: 'controller-broker', holdS: 30 },
  },
  {
    ...BASE,
    name: 'leader-kill',
    summary:
      'SIGKILL of a broker that leads clickstream.raw partitions and is not the controller, restarted after 30 s',
    fault: { action: 'sigkill', target: 'partition-leader-broker', holdS: 30 },
  },
  {
    ...BASE,
    name: 'taskmanager-kill',
    summary:
      'SIGKILL of the Flink TaskManager, started again after 10 s (jobs restore from checkpoints)',
    fault: { action: 'sigkill', target: 'taskmanager', holdS: 10 },
  },
  {
    ...BASE,
    name: 'broker-stall',
    summary: '150 s SIGSTOP of broker 2, then SIGCONT',
    fault: { action: 'sigstop', target: 'broker-2', holdS: 150 },
  },
  {
    ...BASE,
    name: 'taskmanager-stall',
    summary: '150 s SIGSTOP of the Flink TaskManager, then SIGCONT',
    fault: { action: 'sigstop', target: 'taskmanager', holdS: 150 },
  },
  {
    ...BASE,
    name: 'gatekeeper-kill',
    summary:
      'SIGKILL of the gatekeeper under load (a transaction is open almost always); its supervisor restarts it after 1 s',
    fault: { action: 'sigkill', target: 'gatekeeper', holdS: 0 },
  },
  {
    ...BASE,
    name: 'loader-kill',
    summary: 'SIGKILL of the ClickHouse loader; its supervisor restarts it after 1 s',
    fault: { action: 'sigkill', target: 'loader', holdS: 0 },
  },
  {
    ...BASE,
    name: 'clickhouse-restart',
    summary: 'ClickHouse stopped and started again (stack.sh restart clickhouse)',
    fault: { action: 'restart', target: 'clickhouse', holdS: 0 },
  },
  {
    ...BASE,
    name: 'broker-partition',
    summary:
      'broker 2 cut off for 60 s (stack.sh partition-node: nftables drops every packet to and from it), then healed',
    fault: { action: 'partition', target: 'broker-2', holdS: 60 },
    kafkaNet: 'loopback',
  },
  {
    ...BASE,
    name: 'broker-netns-partition',
    summary:
      'broker 2, in a network namespace of its own, cut off for 60 s (its link taken down: a partition between hosts), then healed; needs the stack started with KAFKA_NET=netns',
    fault: { action: 'partition', target: 'broker-2', holdS: 60 },
    kafkaNet: 'netns',
  },
  {
    ...BASE,
    name: 'coordinator-kill',
    summary:
      "SIGKILL of the broker coordinating the gatekeeper's transactions (gatekeeper-0) under load, restarted after 30 s",
    fault: { action: 'sigkill', target: 'coordinator-broker', holdS: 30 },
  },
];

/** A broker target names a broker; restoring a killed broker means restarting it. */
export function isBrokerTarget(t: Target): boolean {
  return t.endsWith('-broker') || t.startsWith('broker-');
}

/** Checks the catalogue: each entry valid, names unique, actions that make sense for their target. Returns the problems found. */
export function validateCatalogue(entries: readonly unknown[]): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  entries.forEach((entry, i) => {
    const parsed = ExperimentSchema.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      problems.push(
        `entry ${i}: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`,
      );
      return;
    }
    const e = parsed.data;
    if (names.has(e.name)) problems.push(`entry ${i}: name '${e.name}' is used twice`);
    names.add(e.name);
    if (e.kind === 'ladder') {
      for (let r = 1; r < e.rungs.length; r++)
        if ((e.rungs[r] as number) <= (e.rungs[r - 1] as number))
          problems.push(`${e.name}: rungs must increase (${e.rungs.join(', ')})`);
      return;
    }
    const { action, target, holdS } = e.fault;
    if (action === 'partition' && !isBrokerTarget(target))
      problems.push(`${e.name}: only a broker can be partitioned, not '${target}'`);
    if (action === 'restart' && target !== 'clickhouse')
      problems.push(`${e.name}: restart is for clickhouse; kill other targets with sigkill`);
    if ((action === 'sigstop' || action === 'partition') && holdS === 0)
      problems.push(`${e.name}: a ${action} needs holdS > 0`);
  });
  return problems;
}

export function findExperiment(name: string): Experiment | undefined {
  return CATALOGUE.find((e) => e.name === name);
}

/** Load duration of one fault run: baseline, fault held, recovery. */
export function loadSeconds(e: FaultExperiment): number {
  return e.baselineS + e.fault.holdS + e.afterS;
}

/** Why experiment `e` cannot run on a stack whose Kafka nodes are networked as `net` (null: it can). */
export function kafkaNetMismatch(e: Experiment, net: string): string | null {
  if (e.kind !== 'fault' || e.kafkaNet === undefined || e.kafkaNet === net) return null;
  const up = `${e.kafkaNet === 'netns' ? 'KAFKA_NET=netns ' : ''}bash infra/local/stack.sh up`;
  const how = `bash tools/pipeline down && bash infra/local/stack.sh down && ${up} && bash tools/pipeline up`;
  return `${e.name} needs the Kafka nodes networked as '${e.kafkaNet}', but the stack runs them as '${net}' (stack.sh net); restart the stack that way: ${how}`;
}

/** One line per experiment, for --help. */
export function describeCatalogue(): string {
  const width = Math.max(...CATALOGUE.map((e) => e.name.length));
  return CATALOGUE.map((e) => {
    const timing =
      e.kind === 'ladder'
        ? `${e.rungs.join('/')} events/s, ${e.rungS} s per rung`
        : `${e.rate} events/s, fault after ${e.baselineS} s, ${e.afterS} s after`;
    return `  ${e.name.padEnd(width)}  ${e.summary}\n  ${''.padEnd(width)}  (${timing})`;
  }).join('\n');
}
