import fc from 'fast-check';
import type { LedgerRow } from '@clickstream/contracts';
import { exactContents } from '../../bench/synthetic';
import { duplicateSend, poisonSend, RUN, validSend } from '../../test/ledger-rows';
import type { LayerContents } from './contents';
import type { EventLayer } from './layers';
import { indexLedger } from './ledger-index';
import { reconcile } from './reconcile';

/** A random ledger: each send valid, poison or a duplicate of an earlier valid send; some failed or unsent. */
const ledgerArb = fc
  .array(
    fc.record({
      kind: fc.constantFrom('valid', 'valid', 'valid', 'poison', 'dup'),
      delivery: fc.constantFrom('acked', 'acked', 'acked', 'acked', 'failed', 'not_sent'),
    }),
    {
      minLength: 1,
      maxLength: 60,
    },
  )
  .map((specs) => {
    const rows: LedgerRow[] = [];
    const firsts: number[] = [];
    specs.forEach((s, seq) => {
      const delivery = s.delivery as LedgerRow['delivery'];
      if (s.kind === 'poison') rows.push(poisonSend(seq, 'truncated', { delivery }));
      else if (s.kind === 'dup' && firsts.length > 0)
        rows.push(duplicateSend(seq, firsts[seq % firsts.length] as number, { delivery }));
      else {
        rows.push(validSend(seq, { delivery }));
        firsts.push(seq);
      }
    });
    return rows;
  });

/** What an exact pipeline holds: sends written unless never sent (failed ones written, as may happen). */
function exact(rows: LedgerRow[]) {
  const written = rows.filter((r) => r.delivery !== 'not_sent');
  // For clean, keep the first written copy of each event.
  const seen = new Set<string>();
  const firstCopies = written.filter(
    (r) =>
      r.expected_fate === 'poison' ||
      (!seen.has(r.event_id as string) && seen.add(r.event_id as string)),
  );
  const base = exactContents(written);
  const clean = exactContents(firstCopies.map((r) => ({ ...r, fault: 'none' as const }))).clean;
  return { ...base, clean };
}

function check(rows: LedgerRow[], layer: EventLayer, contents: LayerContents) {
  const report = reconcile({
    ledger: indexLedger(rows),
    manifestSends: rows.length,
    runId: RUN,
    layers: [{ layer, read: { ok: true, contents } }],
  });
  return report.layers[0];
}

const KIND: Record<string, 'raw' | 'valid' | 'dlq' | 'clean'> = {
  'clickstream.raw': 'raw',
  'events.valid': 'valid',
  'events.dlq': 'dlq',
  'events.clean': 'clean',
};

describe('reconcile: properties over random ledgers', () => {
  const layerArb = fc.constantFrom(
    'clickstream.raw',
    'events.valid',
    'events.dlq',
    'events.clean',
  ) as fc.Arbitrary<EventLayer>;

  it('an exact pipeline is exact (or unknown when the layer is legitimately empty)', () => {
    fc.assert(
      fc.property(ledgerArb, layerArb, (rows, layer) => {
        const l = check(rows, layer, exact(rows)[KIND[layer] as 'raw']);
        expect(l?.verdict).toBe(l?.observed === 0 && (l?.expected ?? 0) > 0 ? 'unknown' : 'exact');
        expect(
          (l?.missing.count ?? 0) + (l?.duplicated.count ?? 0) + (l?.unexpected.count ?? 0),
        ).toBe(0);
      }),
    );
  });

  it('dropping one record is flagged as missing or is an indefinite send', () => {
    fc.assert(
      fc.property(ledgerArb, layerArb, fc.nat(), (rows, layer, pick) => {
        const c = exact(rows)[KIND[layer] as 'raw'];
        fc.pre(c.seqs.length > 0);
        const i = pick % c.seqs.length;
        const seq = c.seqs[i] as number;
        const seqs = Array.from(c.seqs).filter((_, j) => j !== i);
        const l = check(rows, layer, {
          ...c,
          seqs,
          ...(c.reasons ? { reasons: Array.from(c.reasons).filter((_, j) => j !== i) } : {}),
          ...(c.eventIds ? { eventIds: Array.from(c.eventIds).filter((_, j) => j !== i) } : {}),
        });
        // Clean layers expect the event (all its copies) under its first send's seq.
        const clean = KIND[layer] === 'clean';
        const first = clean ? (rows.find((r) => r.seq === seq)?.duplicate_of ?? seq) : seq;
        const copies = rows.filter((r) => r.seq === first || (clean && r.duplicate_of === first));
        if (copies.every((r) => r.delivery !== 'acked')) expect(l?.missing.count).toBe(0);
        else expect(l?.missing.examples).toEqual([{ seq: first }]);
      }),
    );
  });

  it('a record twice is always a duplicate of that seq', () => {
    fc.assert(
      fc.property(ledgerArb, layerArb, fc.nat(), (rows, layer, pick) => {
        const c = exact(rows)[KIND[layer] as 'raw'];
        fc.pre(c.seqs.length > 0);
        const i = pick % c.seqs.length;
        const seqs = [...Array.from(c.seqs), c.seqs[i] as number];
        const l = check(rows, layer, {
          ...c,
          seqs,
          ...(c.reasons ? { reasons: [...Array.from(c.reasons), c.reasons[i] ?? null] } : {}),
          ...(c.eventIds ? { eventIds: [...Array.from(c.eventIds), c.eventIds[i] ?? null] } : {}),
        });
        expect(l?.verdict).toBe('inexact');
        // Clean layers count the event under its first send's seq.
        const row = rows.find((r) => r.seq === c.seqs[i]);
        const seq = KIND[layer] === 'clean' ? (row?.duplicate_of ?? row?.seq) : row?.seq;
        expect(l?.duplicated).toEqual({ count: 1, examples: [{ seq, copies: 2 }] });
      }),
    );
  });
});
