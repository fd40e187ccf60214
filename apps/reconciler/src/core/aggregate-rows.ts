/**
 * Window and session rows as columns: a layer holds hundreds of thousands of them, and an object
 * (plus a values object and a key string) per row was most of the aggregate check's garbage. The
 * four values of a row are numbers (`converted` is 1 or 0); objects are built for examples only.
 */

import { formatKey, type AggregateKind } from './aggregate-keys';

export interface WindowValues {
  window_end: number;
  event_count: number;
  amount_cents_sum: number;
  distinct_sessions: number;
}

export interface SessionValues {
  session_end: number;
  event_count: number;
  revenue_cents: number;
  converted: boolean;
}

export type ValuesOf<K extends AggregateKind> = K extends 'windows' ? WindowValues : SessionValues;

/** Four value columns, in the order of the report's objects. */
export type ValueColumns = [number[], number[], number[], number[]];

export function valueColumns(): ValueColumns {
  return [[], [], [], []];
}

/** Row i of the value columns as the report shows it (field order as the expectation writes them). */
export function valuesAt(
  kind: AggregateKind,
  c: ValueColumns,
  i: number,
): WindowValues | SessionValues {
  const a = c[0][i] as number;
  const b = c[1][i] as number;
  const x = c[2][i] as number;
  const d = c[3][i] as number;
  return kind === 'windows'
    ? { window_end: a, event_count: b, amount_cents_sum: x, distinct_sessions: d }
    : { session_end: a, event_count: b, revenue_cents: x, converted: d === 1 };
}

/** The four numbers of a values object (the inverse of valuesAt). */
export function numbersOf(v: WindowValues | SessionValues): [number, number, number, number] {
  return 'window_end' in v
    ? [v.window_end, v.event_count, v.amount_cents_sum, v.distinct_sessions]
    : [v.session_end, v.event_count, v.revenue_cents, v.converted ? 1 : 0];
}

/** Whether row i of `a` and row j of `b` hold the same values (what comparing the objects field by field says). */
export function sameValuesAt(a: ValueColumns, i: number, b: ValueColumns, j: number): boolean {
  return a[0][i] === b[0][j] && a[1][i] === b[1][j] && a[2][i] === b[2][j] && a[3][i] === b[3][j];
}

/** A row as tests and small readers write it. */
export interface ObservedAggregate<V> {
  runId: string;
  /** event_type of a window, session_id of a session. */
  text: string;
  /** window_start of a window, session_start of a session. */
  time: number;
  values: V;
  version: number;
  isFinal: boolean;
  retracted: boolean;
}

export class AggregateRows {
  readonly runIds: string[] = [];
  readonly texts: string[] = [];
  readonly times: number[] = [];
  readonly versions: number[] = [];
  readonly finals: boolean[] = [];
  readonly retracted: boolean[] = [];
  readonly values: ValueColumns = valueColumns();

  constructor(readonly kind: AggregateKind) {}

  static of<V extends WindowValues | SessionValues>(
    kind: AggregateKind,
    rows: readonly ObservedAggregate<V>[],
  ): AggregateRows {
    const out = new AggregateRows(kind);
    for (const r of rows) {
      const i = out.add(r.runId, r.text, r.time);
      out.set(i, r.version, r.isFinal, r.retracted, ...numbersOf(r.values));
    }
    return out;
  }

  /** Rows copied across threads (a structured clone keeps the columns, not the class). */
  static revive(plain: {
    kind: AggregateKind;
    runIds: string[];
    texts: string[];
    times: number[];
    versions: number[];
    finals: boolean[];
    retracted: boolean[];
    values: ValueColumns;
  }): AggregateRows {
    const out = new AggregateRows(plain.kind);
    Object.assign(out, {
      runIds: plain.runIds,
      texts: plain.texts,
      times: plain.times,
      versions: plain.versions,
      finals: plain.finals,
      retracted: plain.retracted,
      values: plain.values,
    });
    return out;
  }

  get length(): number {
    return this.times.length;
  }

  /** Appends a row with its key parts; its state is set by `set`. Returns its index. */
  add(runId: string, text: string, time: number): number {
    this.runIds.push(runId);
    this.texts.push(text);
    this.times.push(time);
    this.versions.push(0);
    this.finals.push(false);
    this.retracted.push(false);
    for (const c of this.values) c.push(0);
    return this.times.length - 1;
  }

  set(
    i: number,
    version: number,
    isFinal: boolean,
    retracted: boolean,
    a: number,
    b: number,
    c: number,
    d: number,
  ): void {
    this.versions[i] = version;
    this.finals[i] = isFinal;
    this.retracted[i] = retracted;
    this.values[0][i] = a;
    this.values[1][i] = b;
    this.values[2][i] = c;
    this.values[3][i] = d;
  }

  keyOf(i: number): string {
    return formatKey(
      this.kind,
      this.runIds[i] as string,
      this.texts[i] as string,
      this.times[i] as number,
    );
  }

  valuesOf(i: number): WindowValues | SessionValues {
    return valuesAt(this.kind, this.values, i);
  }

  /** Every row as an object with its key string (tests, debugging). */
  toObjects(): {
    key: string;
    values: WindowValues | SessionValues;
    version: number;
    isFinal: boolean;
    retracted: boolean;
  }[] {
    return this.times.map((_, i) => ({
      key: this.keyOf(i),
      values: this.valuesOf(i),
      version: this.versions[i] as number,
      isFinal: this.finals[i] as boolean,
      retracted: this.retracted[i] as boolean,
    }));
  }
}
