/** The exactly-once check of the integration tests, as a pure function: do valid + dlq partition raw, each send exactly once, with the right reason, bytes, partition and order? */

import { HEADERS, decodeEvent, parseSeqHeader } from '@clickstream/contracts';
import type { InRecord } from '@clickstream/kafka-tx';
import type { Fate } from './harness';

export interface CheckReport {
  problems: string[];
  counts: { raw: number; valid: number; dlq: number };
}

/** A raw record's identity: its seq header, else the seq in its payload (only valid events lack a good header in the tests). */
function identity(record: InRecord): number | null {
  const fromHeader = parseSeqHeader(record.headers[HEADERS.seq]);
  if (fromHeader !== null) return fromHeader;
  const decoded = decodeEvent(record.value, { ingestTime: record.timestamp });
  return decoded.ok ? decoded.event.seq : null;
}

const sameBytes = (a: Buffer | null, b: Buffer | null) =>
  a === null || b === null ? a === b : a.equals(b);

export function checkExactlyOnce(
  fates: ReadonlyMap<number, Fate>,
  raw: InRecord[],
  valid: InRecord[],
  dlq: InRecord[],
): CheckReport {
  const problems: string[] = [];
  const note = (p: string) => {
    if (problems.length < 50) problems.push(p);
  };
  const rawBySeq = new Map<number, InRecord>();
  const rawByPosition = new Map<string, InRecord>();
  for (const r of raw) {
    const seq = identity(r);
    if (seq === null || !fates.has(seq))
      note(`raw ${r.partition}@${r.offset}: unknown seq ${String(seq)}`);
    else if (rawBySeq.has(seq)) note(`raw: seq ${seq} twice`);
    else rawBySeq.set(seq, r);
    rawByPosition.set(`${r.partition}@${r.offset}`, r);
  }
  for (const seq of fates.keys()) if (!rawBySeq.has(seq)) note(`raw: seq ${seq} missing`);

  const seen = new Map<number, string>();
  const lastRawOffset = new Map<number, number>();
  for (const v of valid) {
    const decoded = decodeEvent(v.value, { ingestTime: v.timestamp });
    if (!decoded.ok || decoded.version !== 2) {
      note(
        `valid ${v.partition}@${v.offset}: not a valid v2 event (${decoded.ok ? `v${decoded.version}` : decoded.reason})`,
      );
      continue;
    }
    const seq = decoded.event.seq;
    const source = rawBySeq.get(seq);
    if (!source) {
      note(`valid: seq ${seq} is not a raw send`);
      continue;
    }
    if (seen.has(seq)) note(`seq ${seq} twice (${seen.get(seq)} and valid)`);
    seen.set(seq, 'valid');
    if (fates.get(seq) !== 'valid')
      note(`valid: seq ${seq} should be dead-lettered as ${fates.get(seq)}`);
    if (v.partition !== source.partition)
      note(`valid: seq ${seq} on partition ${v.partition}, raw was ${source.partition}`);
    if (decoded.event.ingest_time !== source.timestamp)
      note(
        `valid: seq ${seq} ingest_time ${decoded.event.ingest_time} != raw timestamp ${source.timestamp}`,
      );
    if (v.timestamp !== source.timestamp)
      note(`valid: seq ${seq} timestamp ${v.timestamp} != raw timestamp ${source.timestamp}`);
    if (!sameBytes(v.key, source.key)) note(`valid: seq ${seq} key changed`);
    for (const [name, value] of Object.entries(source.headers))
      if (!sameBytes(v.headers[name] ?? null, value))
        note(`valid: seq ${seq} header ${name} changed`);
    const previous = lastRawOffset.get(v.partition) ?? -1;
    if (source.offset <= previous)
      note(`valid: partition ${v.partition} out of raw order at seq ${seq}`);
    lastRawOffset.set(v.partition, source.offset);
  }

  for (const d of dlq) {
    const position = `${d.headers[HEADERS.sourcePartition]?.toString() ?? '?'}@${d.headers[HEADERS.sourceOffset]?.toString() ?? '?'}`;
    const source = rawByPosition.get(position);
    if (!source || d.headers[HEADERS.sourceTopic]?.toString() !== source.topic) {
      note(`dlq ${d.partition}@${d.offset}: source ${position} is not a raw record`);
      continue;
    }
    const seq = identity(source);
    if (seq === null) continue;
    if (seen.has(seq)) note(`seq ${seq} twice (${seen.get(seq)} and dlq)`);
    seen.set(seq, 'dlq');
    const reason = d.headers[HEADERS.reason]?.toString();
    if (fates.get(seq) !== reason)
      note(`dlq: seq ${seq} has reason ${String(reason)}, expected ${fates.get(seq)}`);
    if (!sameBytes(d.value, source.value)) note(`dlq: seq ${seq} value changed`);
    if (!sameBytes(d.key, source.key)) note(`dlq: seq ${seq} key changed`);
    if (parseSeqHeader(d.headers[HEADERS.seq]) !== seq) note(`dlq: seq ${seq} lost its seq header`);
    if (!(d.headers[HEADERS.detail]?.length ?? 0)) note(`dlq: seq ${seq} has no detail`);
  }
  for (const seq of fates.keys())
    if (rawBySeq.has(seq) && !seen.has(seq))
      note(`seq ${seq} (${fates.get(seq)}) is in neither valid nor dlq`);
  return { problems, counts: { raw: raw.length, valid: valid.length, dlq: dlq.length } };
}
