import fc from 'fast-check';
import { HEADERS, decodeEvent, timeliness, type FaultRatios } from '@clickstream/contracts';
import { Planner } from './planner';

jest.setTimeout(120_000);

const ratioArb = fc.double({ min: 0, max: 0.08, noNaN: true });
const ratiosArb: fc.Arbitrary<FaultRatios> = fc.record({
  duplicate: ratioArb,
  out_of_order: ratioArb,
  late: ratioArb,
  poison_random_bytes: ratioArb,
  poison_truncated: ratioArb,
  poison_unknown_fingerprint: ratioArb,
  poison_bad_magic: ratioArb,
  poison_contract: ratioArb,
  poison_malformed: ratioArb,
});

describe('Planner (property)', () => {
  it('for any seed, ratios, lateness bound and rate, the decoder agrees with every ledger row it plans', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        ratiosArb,
        fc.constantFrom(0, 1, 5000, 60_000),
        fc.integer({ min: 1, max: 20 }),
        (seed, ratios, latenessMs, msPerSlot) => {
          const planner = new Planner({
            seed,
            runId: `p-${seed}`,
            latenessMs,
            ratios,
            v1Share: 0.3,
            sessions: 20,
            maxDuplicateDelayMs: 90_000,
          });
          const count = 400;
          const start = 1_790_000_000_000;
          const originals = new Map<number, Buffer>();
          for (let seq = 0; seq < count; seq++) {
            const t = start + seq * msPerSlot;
            const send = planner.plan({ seq, virtualTime: t, sendTime: t, remaining: count - seq });
            const row = send.row;
            if (
              row.seq !== seq ||
              send.headers[HEADERS.seq] !== String(seq) ||
              send.timestamp !== t ||
              row.send_time !== t
            )
              return false;
            const res = decodeEvent(send.value, { ingestTime: t });
            if (row.expected_fate === 'poison') {
              if (res.ok || res.reason !== row.expected_reason) return false;
              continue;
            }
            if (!res.ok) return false;
            if (
              res.event.event_id !== row.event_id ||
              res.event.event_time !== row.event_time ||
              res.version !== row.schema_version
            )
              return false;
            if (timeliness(res.event.event_time, t, latenessMs) !== row.expected_timeliness)
              return false;
            if (row.fault === 'out_of_order' && row.expected_timeliness !== 'on_time') return false;
            if (row.fault === 'late' && row.expected_timeliness !== 'late') return false;
            if (row.fault === 'duplicate') {
              const original = originals.get(row.duplicate_of!);
              if (!original || !original.equals(send.value)) return false;
            } else {
              originals.set(seq, send.value);
            }
          }
          // A count-bounded plan leaves no duplicate behind.
          return planner.pendingDuplicates === 0;
        },
      ),
      { numRuns: 40 },
    );
  });
});
