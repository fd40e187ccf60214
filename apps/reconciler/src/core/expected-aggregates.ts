/**
 * The window or session rows the ledger implies, by key id: ids 0..size-1 are the expected rows in
 * the order the expectation found them (the order a report's missing examples follow). Observed
 * rows are given ids in the same key space by the check, after these, so `id < size` is "expected".
 * Iterates as [key string, values] for tests and tools (like the Map it replaces).
 */

import { AggregateKeys, type AggregateKind } from './aggregate-keys';
import { valueColumns, valuesAt, type ValueColumns, type ValuesOf } from './aggregate-rows';

export class ExpectedAggregates<K extends AggregateKind> implements Iterable<
  [string, ValuesOf<K>]
> {
  /** Shared with the observed rows a check gives ids. */
  readonly space: AggregateKeys;
  readonly values: ValueColumns = valueColumns();
  size = 0;

  constructor(readonly kind: K) {
    this.space = new AggregateKeys(kind);
  }

  /** The id of an expected row, added with zero values when new. */
  add(runId: string, text: string, time: number): number {
    const id = this.space.idOf(runId, text, time);
    if (id === this.size) {
      this.size++;
      for (const c of this.values) c.push(0);
    } else if (id > this.size) {
      throw new Error('expected rows added after observed rows were given ids');
    }
    return id;
  }

  valuesOf(id: number): ValuesOf<K> {
    return valuesAt(this.kind, this.values, id) as ValuesOf<K>;
  }

  *keys(): IterableIterator<string> {
    for (let id = 0; id < this.size; id++) yield this.space.keyOf(id);
  }

  *[Symbol.iterator](): IterableIterator<[string, ValuesOf<K>]> {
    for (let id = 0; id < this.size; id++) yield [this.space.keyOf(id), this.valuesOf(id)];
  }
}
