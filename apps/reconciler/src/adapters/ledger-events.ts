/**
 * Ledger adapter for the timed layers: the valid sends' event fields, read column by column into
 * columns indexed by seq (no object per send: a 2.7 M-send ledger is read once, with little garbage).
 */

import { iterateLedgerColumns, type LedgerColumns } from '@clickstream/ledger';
import { EVENT_TYPES } from '@clickstream/contracts';
import type { LedgerEvent, LedgerEvents } from '../core/ledger-events';

const ABSENT = 255;

/** LedgerEvents as columns by seq; get() builds the (short-lived) object a caller asks for. */
export class LedgerEventColumns implements LedgerEvents {
  size = 0;
  private capacity = 0;
  private type = new Uint8Array(0);
  private runCode = new Uint16Array(0);
  private eventTime = new Float64Array(0);
  private amount = new Float64Array(0);
  private sendTime = new Float64Array(0);
  private readonly sessionIds: string[] = [];
  private readonly runIds: string[] = [];
  private readonly runCodes = new Map<string, number>();

  private grow(seq: number): void {
    if (seq < this.capacity) return;
    let capacity = Math.max(1024, this.capacity * 2);
    while (capacity <= seq) capacity *= 2;
    const type = new Uint8Array(capacity).fill(ABSENT);
    type.set(this.type);
    this.type = type;
    this.runCode = resized(this.runCode, new Uint16Array(capacity));
    this.eventTime = resized(this.eventTime, new Float64Array(capacity));
    this.amount = resized(this.amount, new Float64Array(capacity));
    this.sendTime = resized(this.sendTime, new Float64Array(capacity));
    this.capacity = capacity;
  }

  private codeOf(runId: string): number {
    let code = this.runCodes.get(runId);
    if (code === undefined) {
      code = this.runIds.length;
      if (code > 0xffff) throw new Error('a ledger with more than 65,536 run ids');
      this.runIds.push(runId);
      this.runCodes.set(runId, code);
    }
    return code;
  }

  set(e: Omit<LedgerEvent, 'eventType'> & { type: number }): void {
    if (!Number.isInteger(e.seq) || e.seq < 0) return;
    this.grow(e.seq);
    if (this.type[e.seq] === ABSENT) this.size++;
    this.type[e.seq] = e.type;
    this.runCode[e.seq] = this.codeOf(e.runId);
    this.eventTime[e.seq] = e.eventTime;
    this.amount[e.seq] = e.amountCents ?? Number.NaN;
    this.sendTime[e.seq] = e.sendTime;
    this.sessionIds[e.seq] = e.sessionId;
  }

  get(seq: number): LedgerEvent | undefined {
    if (!(seq >= 0 && seq < this.capacity) || this.type[seq] === ABSENT) return undefined;
    const amount = this.amount[seq] as number;
    return {
      seq,
      runId: this.runIds[this.runCode[seq] as number] as string,
      eventType: EVENT_TYPES[this.type[seq] as number] as string,
      sessionId: this.sessionIds[seq] as string,
      eventTime: this.eventTime[seq] as number,
      amountCents: Number.isNaN(amount) ? null : amount,
      sendTime: this.sendTime[seq] as number,
    };
  }
}

function resized<T extends Uint16Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

function addBatch(out: LedgerEventColumns, batch: LedgerColumns): void {
  const n = batch.length;
  const runIds = batch.strings('run_id');
  const sessionIds = batch.strings('session_id');
  const seqs = batch.numbers('seq', -1);
  const eventTimes = batch.numbers('event_time', Number.NaN);
  const amounts = batch.numbers('amount_cents', Number.NaN);
  const sendTimes = batch.numbers('send_time', Number.NaN);
  const types = batch.codes('event_type', EVENT_TYPES);
  const valid = batch.codes('expected_fate', [], (v) => (v === 'valid' ? 1 : 0));
  const eventIds = batch.present('event_id');
  for (let i = 0; i < n; i++) {
    if (valid[i] !== 1 || eventIds[i] !== 1) continue;
    const sessionId = sessionIds[i];
    const type = types[i] as number;
    const eventTime = eventTimes[i] as number;
    if (!sessionId || type < 0 || Number.isNaN(eventTime)) continue;
    const amount = amounts[i] as number;
    out.set({
      seq: seqs[i] as number,
      runId: runIds[i] ?? '',
      type,
      sessionId,
      eventTime,
      amountCents: Number.isNaN(amount) ? null : amount,
      sendTime: sendTimes[i] as number,
    });
  }
}

export async function readLedgerEvents(file: string): Promise<LedgerEventColumns> {
  const out = new LedgerEventColumns();
  for await (const batch of iterateLedgerColumns(file)) addBatch(out, batch);
  return out;
}
