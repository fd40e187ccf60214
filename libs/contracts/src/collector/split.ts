/** Splits concatenated Avro single-object records (one HTTP body, many records) without validating any of them. */

import { schemaEntries } from '../event/registry';
import { SINGLE_OBJECT_HEADER_BYTES, SINGLE_OBJECT_MAGIC } from '../event/wire';

export interface SingleObjectSplit {
  /** Each complete record's bytes, unchanged, in body order. */
  records: Buffer[];
  /** Bytes from the first record that could not be delimited (bad magic, unknown fingerprint, truncated, malformed body); empty when none. */
  rest: Buffer;
}

/**
 * Walks the body record by record: a record's length is known only by decoding its body with the
 * writer schema named by its fingerprint. Stops at `maxRecords` records (the rest is then left in
 * `rest`) or at the first record that cannot be delimited. Never throws.
 */
export function splitSingleObjects(body: Buffer, maxRecords: number): SingleObjectSplit {
  const entries = schemaEntries();
  const records: Buffer[] = [];
  let pos = 0;
  while (pos < body.length && records.length < maxRecords) {
    if (pos + SINGLE_OBJECT_HEADER_BYTES > body.length) break;
    if (body[pos] !== SINGLE_OBJECT_MAGIC[0] || body[pos + 1] !== SINGLE_OBJECT_MAGIC[1]) break;
    const entry = entries.find(
      (e) => body.compare(e.fingerprint, 0, 8, pos + 2, pos + SINGLE_OBJECT_HEADER_BYTES) === 0,
    );
    if (entry === undefined) break;
    let end: number;
    try {
      end = entry.type.decode(body, pos + SINGLE_OBJECT_HEADER_BYTES).offset;
    } catch {
      break;
    }
    if (end < 0 || end > body.length) break;
    records.push(Buffer.from(body.subarray(pos, end)));
    pos = end;
  }
  return { records, rest: Buffer.from(body.subarray(pos)) };
}

/** What a record says about itself, read without checking the contract (null when it does not decode exactly). */
export interface SingleObjectLabels {
  seq: unknown;
  run_id: unknown;
  session_id: unknown;
}

/** Decodes one whole record with its writer schema and returns its seq, run_id and session_id. Never throws. */
export function readSingleObjectLabels(bytes: Buffer): SingleObjectLabels | null {
  const split = splitSingleObjects(bytes, 1);
  if (split.records.length !== 1 || split.rest.length > 0) return null;
  const entry = schemaEntries().find(
    (e) => bytes.compare(e.fingerprint, 0, 8, 2, SINGLE_OBJECT_HEADER_BYTES) === 0,
  );
  try {
    const value = entry?.type.decode(bytes, SINGLE_OBJECT_HEADER_BYTES).value as
      SingleObjectLabels | undefined;
    if (value === undefined) return null;
    return { seq: value.seq, run_id: value.run_id, session_id: value.session_id };
  } catch {
    return null;
  }
}
