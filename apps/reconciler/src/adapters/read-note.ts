/** The first note of a Kafka layer's read (no Kafka client here: the second thread's reducers use it too). */

/** How many records were read, and from where and by which reader (TopicSource.from / .reader). */
export function readNote(
  topic: string,
  records: number,
  source: { readonly from?: string; readonly reader?: string },
): string {
  const from = source.from === undefined ? '' : ` ${source.from}`;
  const by = source.reader === undefined ? '' : ` ${source.reader}`;
  return `topic ${topic}: ${records} record(s) read${from}${by}`;
}
