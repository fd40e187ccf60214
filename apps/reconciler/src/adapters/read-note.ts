/** The first notes of a Kafka layer's read (no Kafka client here: the second thread's reducers use it too). */

/** A partition whose read began at its log start, after records before it were deleted. */
export interface Trimmed {
  partition: number;
  logStart: number;
}

/**
 * How many records were read, and from where and by which reader (TopicSource.from / .reader);
 * then, if deletions (retention, DeleteRecords) had moved the log start of a partition to where its
 * read began, which partitions: records of the run among the deleted ones are missing, and the
 * note says why.
 */
export function readNotes(
  topic: string,
  scan: { records: number; trimmed: readonly Trimmed[] },
  source: { readonly from?: string; readonly reader?: string },
): string[] {
  const from = source.from === undefined ? '' : ` ${source.from}`;
  const by = source.reader === undefined ? '' : ` ${source.reader}`;
  const notes = [`topic ${topic}: ${scan.records} record(s) read${from}${by}`];
  if (scan.trimmed.length > 0)
    notes.push(
      `topic ${topic}: the read of partition(s) ${scan.trimmed
        .map((t) => `${t.partition} (log start ${t.logStart})`)
        .join(', ')} began at the log start, and the records before it had been deleted ` +
        `(retention, or DeleteRecords): any of this run's records among them are reported missing`,
    );
  return notes;
}
