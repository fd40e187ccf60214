/** Group members for the start-up specs: copy loops whose applied rebalances are recorded from kafka-tx's own log lines, and a bounded wait that says what each member did. */
import { committedLag, readTopic, runTransactionalLoop } from '../src';
import type { InRecord, KafkaClientOptions, LoopResult, Logger } from '../src';
import { compareCopy, seed, sleep, uniqueName } from './helpers';

/** Liveness bound per phase; the start-up failure of docs/GATEKEEPER.md lasted four minutes. */
export const BOUND_MS = 60_000;

/** One copy loop (input to output, identity, one transaction per batch) in a consumer group. */
export interface Member {
  tag: string;
  done: Promise<LoopResult>;
  stop: AbortController;
  /** Partitions currently assigned (the last applied rebalance). */
  assigned: number;
  /** Every applied rebalance, ms after t0. */
  rebalances: string[];
  committed: number;
}

/** Passes everything on to `base`, and reports the loop's "rebalance applied" lines to `member`. */
function recordingLogger(base: Logger, member: Member, t0: number): Logger {
  return {
    debug: (o, msg) => base.debug(o, msg),
    info: (o, msg) => {
      if (msg === 'rebalance applied') {
        const r = o as { kind?: string; partitions?: number };
        member.assigned = r.kind === 'assign' ? (r.partitions ?? 0) : 0;
        member.rebalances.push(`${Date.now() - t0} ms ${r.kind} ${r.partitions}`);
      }
      base.info(o, msg);
    },
    warn: (o, msg) => base.warn(o, msg),
    error: (o, msg) => base.error(o, msg),
    child: (bindings) => recordingLogger(base.child?.(bindings) ?? base, member, t0),
  };
}

/** Starts a member now (no await: two calls in a row start in the same tick). */
export function startMember(
  o: KafkaClientOptions,
  tag: string,
  group: string,
  input: string,
  output: string,
  t0: number,
): Member {
  const m: Member = {
    tag,
    done: Promise.resolve({ reason: 'stopped' }),
    stop: new AbortController(),
    assigned: 0,
    rebalances: [],
    committed: 0,
  };
  m.done = runTransactionalLoop({
    client: { ...o, clientId: `${o.clientId}-${tag}`, logger: recordingLogger(o.logger, m, t0) },
    groupId: group,
    transactionalId: uniqueName(`member-tx-${tag}`),
    inputTopics: [input],
    maxBatchRecords: 200,
    transform: (batch: InRecord[]) =>
      batch.map((r) => ({ topic: output, partition: r.partition, key: r.key, value: r.value })),
    hooks: { onCommit: (_ms, n) => (m.committed += n) },
    signal: m.stop.signal,
  });
  return m;
}

/**
 * Polls the group's committed lag (from the first call on, as the gatekeeper's lag poller does
 * beside its loop) until `done(lag)` holds; after BOUND_MS fails with the lag and what each
 * member did.
 */
export async function within(
  o: KafkaClientOptions,
  what: string,
  group: string,
  input: string,
  members: Member[],
  done: (lag: number) => boolean,
): Promise<void> {
  const deadline = Date.now() + BOUND_MS;
  let lag = -1;
  let lagError = '';
  for (;;) {
    try {
      lag = await committedLag(o, group, input);
      lagError = '';
    } catch (e) {
      lagError = String(e);
    }
    if (lagError === '' && done(lag)) return;
    if (Date.now() > deadline) {
      const state = members.map((m) => ({
        member: m.tag,
        assigned: m.assigned,
        committed: m.committed,
        rebalances: m.rebalances,
      }));
      throw new Error(
        `not within ${BOUND_MS} ms: ${what}; group lag ${lag} ${lagError}; members ${JSON.stringify(state)}`,
      );
    }
    await sleep(500);
  }
}

/** One round of a start-up spec: the group, its topics and how many records were seeded before the start. */
export interface SharedCopy {
  group: string;
  input: string;
  output: string;
  partitions: number;
  /** Records seeded into `input` (values 0..n-1) before the members started; as many follow. */
  n: number;
}

/**
 * The check after two members started on a new group: both are assigned, together covering every
 * partition, with everything committed (`assigned` names that wait); both copy some of a second
 * half of n records; both stop cleanly; the output is an exact copy of the input, 2n committed.
 */
export async function expectSharedExactCopy(
  o: KafkaClientOptions,
  run: SharedCopy,
  a: Member,
  b: Member,
  assigned: string,
): Promise<void> {
  const { group, input, output, partitions, n } = run;
  await within(
    o,
    assigned,
    group,
    input,
    [a, b],
    (lag) =>
      a.assigned > 0 && b.assigned > 0 && a.assigned + b.assigned === partitions && lag === 0,
  );

  // Records arriving now are spread over all partitions, so each member must copy some.
  const [aBefore, bBefore] = [a.committed, b.committed];
  expect(await seed(o, input, n, n)).toBe(n);
  await within(
    o,
    'both members copying the second half',
    group,
    input,
    [a, b],
    (lag) => lag === 0 && a.committed > aBefore && b.committed > bBefore,
  );

  a.stop.abort();
  b.stop.abort();
  expect(await a.done).toEqual({ reason: 'stopped' });
  expect(await b.done).toEqual({ reason: 'stopped' });
  o.logger.warn(
    { group, a: a.rebalances, b: b.rebalances, committed: [a.committed, b.committed] },
    'rebalances applied, ms after the start (informational)',
  );

  const outRecs = await readTopic({ ...o, topic: output });
  expect(compareCopy(await readTopic({ ...o, topic: input }), outRecs)).toEqual({
    missing: [],
    duplicated: [],
    unexpected: [],
  });
  expect(outRecs).toHaveLength(2 * n);
  expect(a.committed + b.committed).toBe(2 * n);
}

/** Kafka's group (and transactional id) placement: Utils.abs(String.hashCode) % partitions, where Utils.abs is Math.abs with Integer.MIN_VALUE mapped to 0. */
export function offsetsPartition(groupId: string, partitions: number): number {
  let h = 0;
  for (let i = 0; i < groupId.length; i++) h = (Math.imul(h, 31) + groupId.charCodeAt(i)) | 0;
  return (h === -2147483648 ? 0 : Math.abs(h)) % partitions;
}
