/** Condensed evidence of one anomaly kind: how many, and the first few examples. */

import type { Evidence } from '@clickstream/contracts';

/** Examples kept per anomaly kind (the report schema allows at most 20). */
export const DEFAULT_EXAMPLES = 10;

export class EvidenceCollector {
  count = 0;
  private readonly examples: unknown[] = [];

  constructor(private readonly limit = DEFAULT_EXAMPLES) {}

  add(example: unknown, n = 1): void {
    this.count += n;
    if (this.examples.length < this.limit) this.examples.push(example);
  }

  /** As add, but builds the example only when it is kept (a layer can hold a million anomalies). */
  addLazily(example: () => unknown, n = 1): void {
    this.count += n;
    if (this.examples.length < this.limit) this.examples.push(example());
  }

  /** Takes in evidence an adapter condensed already (its count, its examples up to the limit). */
  addEvidence(e: Evidence): void {
    this.count += e.count;
    for (const example of e.examples) {
      if (this.examples.length >= this.limit) break;
      this.examples.push(example);
    }
  }

  toEvidence(): Evidence {
    return { count: this.count, examples: this.examples };
  }
}
