/**
 * Ledger adapter: the ledger file, read column by column through the columnar reader of
 * @clickstream/ledger, straight into a LedgerIndex (no object per send).
 */

import { DELIVERY_STATUSES, REJECT_REASONS } from '@clickstream/contracts';
import { iterateLedgerColumns, NULL_CODE, type LedgerColumns } from '@clickstream/ledger';
import {
  DELIVERY,
  FATE,
  LedgerIndexBuilder,
  NO_REASON,
  reasonIndex,
  type LedgerIndex,
} from '../core/ledger-index';

class Problems {
  count = 0;
  readonly examples: string[] = [];
  note(problem: string): void {
    if (this.count++ < 3) this.examples.push(problem);
  }
}

const BAD = -2;
const fateCode = (v: string): number =>
  v === 'valid' ? FATE.valid : v === 'poison' ? FATE.poison : BAD;
const reasonCode = (v: string): number =>
  (REJECT_REASONS as readonly string[]).includes(v) ? reasonIndex(v) : BAD;
const deliveryCode = (v: string): number =>
  (DELIVERY_STATUSES as readonly string[]).includes(v) ? DELIVERY[v as keyof typeof DELIVERY] : BAD;

function addBatch(b: LedgerIndexBuilder, batch: LedgerColumns, problems: Problems): void {
  const n = batch.length;
  const runIds = batch.strings('run_id');
  const eventIds = batch.strings('event_id');
  const seqs = batch.numbers('seq', -1);
  const duplicateOf = batch.numbers('duplicate_of', -1);
  const duplicate = batch.codes('fault', [], (v) => (v === 'duplicate' ? 1 : 0));
  const fate = batch.codes('expected_fate', [], fateCode);
  const reason = batch.codes('expected_reason', [], reasonCode);
  const delivery = batch.codes('delivery', [], deliveryCode);
  for (let i = 0; i < n; i++) {
    const f = fate[i] as number;
    const d = delivery[i] as number;
    const r = reason[i] === NULL_CODE ? NO_REASON : (reason[i] as number);
    // The checks the reconciler depends on; the full row contract is zod's, in @clickstream/ledger.
    if (f < 0 || d < 0 || r === BAD)
      problems.note(`seq ${seqs[i]}: unknown expected_fate, delivery or expected_reason`);
    if (f === FATE.poison && r === NO_REASON)
      problems.note(`seq ${seqs[i]}: poison without expected_reason`);
    const dup = duplicate[i] === 1 ? (duplicateOf[i] as number) : -1;
    if (duplicate[i] === 1 && dup < 0)
      problems.note(`seq ${seqs[i]}: duplicate without duplicate_of`);
    b.addSend(
      runIds[i] ?? '',
      seqs[i] as number,
      d < 0 ? DELIVERY.not_sent : d,
      f < 0 ? FATE.valid : f,
      r < 0 ? NO_REASON : r,
      dup,
      eventIds[i] ?? null,
    );
  }
}

export async function readLedgerIndex(file: string, sizeHint: number): Promise<LedgerIndex> {
  const builder = new LedgerIndexBuilder(sizeHint);
  const problems = new Problems();
  let cut: string | null = null;
  const batches = iterateLedgerColumns(file, { onCutTail: (detail) => (cut = detail) });
  for await (const batch of batches) addBatch(builder, batch, problems);
  const index = builder.finish();
  // Checked up to the cut, never passed: what followed it is not known.
  if (cut !== null) index.problems.push(`the ledger is cut short: ${String(cut)}`);
  if (problems.count > 0)
    index.problems.push(
      `${problems.count} bad ledger row(s), e.g. ${problems.examples.join('; ')}`,
    );
  return index;
}
