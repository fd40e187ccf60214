/** Decides, slot by slot, what the generator sends: a storefront event, a fault, or a due duplicate, with its exact ledger row. */

import {
  HEADERS,
  encodeEvent,
  timeliness,
  type ClickEvent,
  type EventType,
  type FaultKind,
  type FaultRatios,
  type RejectReason,
  type SchemaVersion,
} from '@clickstream/contracts';
import {
  absurdOffsetMs,
  duplicateDelayMs,
  FaultPlan,
  isPoison,
  timeOffsetMs,
  type PoisonFault,
} from './faults';
import { MergeQueue, mergePlan } from './merges';
import { PendingDuplicates } from './pending';
import { plannedRow, type PlannedRow, type PlannedSend } from './planned';
import {
  CONTRACT_BREAKS,
  MALFORMATIONS,
  badMagicPoison,
  breakContract,
  malformedPoison,
  randomBytesPoison,
  truncatedPoison,
  unknownFingerprintPoison,
  type ContractBreak,
  type Malformation,
} from './poison';
import { Prng } from './prng';
import { Storefront, type Draft } from './storefront';
import { priceIn } from './catalogue';

export interface PlannerOptions {
  seed: number;
  runId: string;
  latenessMs: number;
  ratios: FaultRatios;
  /** Share of sessions whose client writes schema v1. */
  v1Share: number;
  /** Concurrent shopper sessions. */
  sessions: number;
  maxDuplicateDelayMs: number;
}

/** One send slot: its seq, its place on the virtual clock, the time it is actually sent, and how many slots are left (count mode). */
export interface Slot {
  seq: number;
  virtualTime: number;
  sendTime: number;
  /** Slots left including this one, when the run has a fixed count; null for a run bounded by time. */
  remaining: number | null;
}

export class Planner {
  private readonly shop: Storefront;
  private readonly faults: FaultPlan;
  /** Separate streams: changing a fault ratio does not change the shoppers, and vice versa. */
  private readonly faultPrng: Prng;
  private readonly poisonPrng: Prng;
  private readonly pending = new PendingDuplicates();
  private readonly merges = new MergeQueue();
  /**
   * Contract breaks and malformations are taken in turn, not drawn: a run with at least 7
   * poison_contract and 4 poison_malformed sends produces every reason of the closed list.
   */
  private contractTurn = 0;
  private malformedTurn = 0;

  constructor(private readonly o: PlannerOptions) {
    this.shop = new Storefront(Prng.stream(o.seed, o.runId, 'shoppers'), {
      sessions: o.sessions,
      v1Share: o.v1Share,
    });
    this.faults = new FaultPlan(o.ratios);
    this.faultPrng = Prng.stream(o.seed, o.runId, 'faults');
    this.poisonPrng = Prng.stream(o.seed, o.runId, 'poison');
  }

  get pendingDuplicates(): number {
    return this.pending.size;
  }

  /** Scheduled sends (duplicates and merge steps) that each need a slot of their own. */
  private get scheduled(): number {
    return this.pending.size + this.merges.size;
  }

  plan(slot: Slot): PlannedSend {
    const full = slot.remaining !== null && this.scheduled >= slot.remaining;
    const merge = this.merges.peek();
    const next = this.pending.peek();
    if (merge && (merge.due <= slot.virtualTime || (full && (!next || merge.due <= next.due)))) {
      return this.mergeStep(slot);
    }
    if (next && (next.due <= slot.virtualTime || full)) {
      return this.duplicate(slot);
    }
    const fault = this.faults.fresh(this.faultPrng);
    const offset = timeOffsetMs(fault, this.faultPrng, this.o.latenessMs);
    if (isPoison(fault)) return this.poison(fault, slot);
    // A merge needs two more slots; without them (the end of a counted run) the send is a plain one.
    if (fault === 'session_merge')
      return slot.remaining === null || this.scheduled + 2 < slot.remaining
        ? this.startMerge(slot, offset)
        : this.plain(slot, offset, 'none');
    return this.plain(slot, offset, fault);
  }

  /** A storefront event with the given fault, and maybe a duplicate of it scheduled. */
  private plain(slot: Slot, offset: number, fault: FaultKind): PlannedSend {
    const draft = this.shop.next();
    const event = this.toEvent(draft, slot.seq, slot.sendTime - offset);
    const value = encodeEvent(event, draft.version);
    const row = this.eventRow(event, draft.version, slot.sendTime, fault, 'valid', null);
    row.expected_timeliness = timeliness(event.event_time, slot.sendTime, this.o.latenessMs);
    const send = this.send(slot, event.session_id, value, row);

    const wantsDuplicate = this.faultPrng.chance(this.faults.duplicateProbability);
    const delay = duplicateDelayMs(this.faultPrng, this.o.maxDuplicateDelayMs);
    // In count mode a duplicate is only scheduled if a slot is left for it, so the count is exact and no duplicate is lost.
    // Edge events are not duplicated: a copy minutes later is just late, and the edge is the point.
    if (
      wantsDuplicate &&
      fault !== 'lateness_edge' &&
      (slot.remaining === null || this.scheduled < slot.remaining - 1)
    ) {
      this.pending.push({
        due: slot.virtualTime + delay,
        originalSeq: slot.seq,
        key: send.key,
        value,
        original: row,
      });
    }
    return send;
  }

  /** After the last slot of a timed run: the earliest pending duplicate, sent now rather than lost; null when none is left. */
  drain(slot: Slot): PlannedSend | null {
    const merge = this.merges.peek();
    const next = this.pending.peek();
    if (merge && (!next || merge.due <= next.due)) return this.mergeStep(slot);
    return next ? this.duplicate(slot) : null;
  }

  /** A of a session merge: the first event of a fresh session; B and C are scheduled. */
  private startMerge(slot: Slot, offset: number): PlannedSend {
    const sessionId = `merge-${this.faultPrng.uuidV4()}`;
    const eventTime = slot.sendTime - offset;
    const plan = mergePlan(slot.virtualTime, eventTime, this.o.latenessMs);
    this.merges.push({ due: plan.secondDue, step: 'second_session', sessionId, eventTime: null });
    this.merges.push({
      due: plan.bridgeDue,
      step: 'bridge',
      sessionId,
      eventTime: plan.bridgeEventTime,
    });
    return this.mergeEvent(slot, sessionId, eventTime, '/', 'none');
  }

  /**
   * B (the second session's first event, at its send time) or C (the bridge: out of order within
   * L). A step sent before it is due (the end of a counted run) cannot merge anything: it is a
   * plain event at its send time.
   */
  private mergeStep(slot: Slot): PlannedSend {
    const m = this.merges.pop()!;
    if (m.step === 'bridge' && m.due <= slot.virtualTime)
      return this.mergeEvent(slot, m.sessionId, m.eventTime as number, '/help', 'out_of_order');
    return this.mergeEvent(slot, m.sessionId, slot.sendTime, '/sale', 'none');
  }

  private mergeEvent(
    slot: Slot,
    sessionId: string,
    eventTime: number,
    page: string,
    fault: FaultKind,
  ): PlannedSend {
    const draft: Draft = {
      event_id: this.faultPrng.uuidV4(),
      event_type: 'page_view',
      session_id: sessionId,
      user_id: null,
      page,
      product_id: null,
      quantity: null,
      amount_cents: null,
      currency: null,
      device: 'desktop',
      version: 2,
    };
    const event = this.toEvent(draft, slot.seq, eventTime);
    const row = this.eventRow(event, 2, slot.sendTime, fault, 'valid', null);
    row.expected_timeliness = timeliness(event.event_time, slot.sendTime, this.o.latenessMs);
    return this.send(slot, sessionId, encodeEvent(event, 2), row);
  }

  private duplicate(slot: Slot): PlannedSend {
    const d = this.pending.pop()!;
    const o = d.original;
    const row = plannedRow(o);
    row.seq = slot.seq;
    row.send_time = slot.sendTime;
    row.fault = 'duplicate';
    row.duplicate_of = d.originalSeq;
    // Timeliness is judged per send against its own ingest time: a duplicate minutes later is late.
    row.expected_timeliness =
      o.event_time === null ? null : timeliness(o.event_time, slot.sendTime, this.o.latenessMs);
    return this.send(slot, d.key, d.value, row);
  }

  private send(slot: Slot, key: string | null, value: Buffer, row: PlannedRow): PlannedSend {
    return {
      seq: slot.seq,
      key,
      value,
      headers: { [HEADERS.seq]: String(slot.seq), [HEADERS.runId]: this.o.runId },
      timestamp: slot.sendTime,
      row,
    };
  }

  private toEvent(d: Draft, seq: number, eventTime: number): ClickEvent {
    return {
      event_id: d.event_id,
      seq,
      run_id: this.o.runId,
      event_type: d.event_type,
      event_time: eventTime,
      session_id: d.session_id,
      user_id: d.user_id,
      page: d.page,
      product_id: d.product_id,
      quantity: d.quantity,
      amount_cents: d.amount_cents,
      currency: d.currency,
      device: d.device,
      ingest_time: null,
    };
  }

  /** The ledger row of an event send, every field written out (one hidden class for all rows: spreads made them slow). */
  private eventRow(
    e: ClickEvent,
    version: SchemaVersion | null,
    sendTime: number,
    fault: FaultKind,
    fate: 'valid' | 'poison',
    reason: RejectReason | null,
  ): PlannedRow {
    return {
      run_id: this.o.runId,
      seq: e.seq,
      event_id: e.event_id,
      event_type: e.event_type,
      session_id: e.session_id,
      key: e.session_id,
      event_time: e.event_time,
      amount_cents: e.amount_cents,
      schema_version: version,
      send_time: sendTime,
      fault,
      duplicate_of: null,
      expected_fate: fate,
      expected_reason: reason,
      expected_timeliness: null,
    };
  }

  /** A plausible event of an active session, built without advancing it, for poison to be made of. */
  private shadowEvent(
    type: EventType,
    seq: number,
    eventTime: number,
  ): { event: ClickEvent; version: SchemaVersion } {
    const p = this.poisonPrng;
    const s = this.shop.someSession();
    const product = this.shop.randomProduct();
    const quantity = p.int(1, 3);
    const amount =
      type === 'page_view' || type === 'product_view'
        ? null
        : priceIn(product, s.currency) * quantity;
    const withProduct =
      type === 'product_view' || type === 'add_to_cart' || type === 'remove_from_cart';
    const inCart = type === 'add_to_cart' || type === 'remove_from_cart';
    const draft: Draft = {
      event_id: p.uuidV4(),
      event_type: type,
      session_id: s.id,
      user_id: s.userId,
      page: withProduct ? `/p/${product.id}` : '/',
      product_id: withProduct ? product.id : null,
      quantity: inCart ? quantity : null,
      amount_cents: amount,
      currency: amount === null ? null : s.currency,
      device: s.device,
      version: s.version,
    };
    return { event: this.toEvent(draft, seq, eventTime), version: s.version };
  }

  private poison(fault: PoisonFault, slot: Slot): PlannedSend {
    const p = this.poisonPrng;
    if (fault === 'poison_random_bytes') {
      const row: PlannedRow = {
        run_id: this.o.runId,
        seq: slot.seq,
        event_id: null,
        event_type: null,
        session_id: null,
        key: null,
        event_time: null,
        amount_cents: null,
        schema_version: null,
        send_time: slot.sendTime,
        fault,
        duplicate_of: null,
        expected_fate: 'poison',
        expected_reason: 'bad_magic',
        expected_timeliness: null,
      };
      return this.send(slot, null, randomBytesPoison(p), row);
    }
    if (fault === 'poison_contract') {
      const kind: ContractBreak = CONTRACT_BREAKS[
        this.contractTurn++ % CONTRACT_BREAKS.length
      ] as ContractBreak;
      const type = this.contractBaseType(kind);
      const eventTime =
        kind === 'absurd_event_time'
          ? slot.sendTime - absurdOffsetMs(p)
          : slot.sendTime - p.int(0, 250);
      const { event, version } = this.shadowEvent(type, slot.seq, eventTime);
      const broken = breakContract(kind, event, p);
      const row = this.eventRow(broken, version, slot.sendTime, fault, 'poison', kind);
      return this.send(slot, broken.session_id, encodeEvent(broken, version), row);
    }
    const type = p.pick(['page_view', 'product_view'] as const);
    const { event, version } = this.shadowEvent(type, slot.seq, slot.sendTime - p.int(0, 250));
    const encoded = encodeEvent(event, version);
    switch (fault) {
      case 'poison_malformed': {
        const kind = MALFORMATIONS[this.malformedTurn++ % MALFORMATIONS.length] as Malformation;
        const bytes = malformedPoison(kind, encoded, p, slot.sendTime);
        const row = this.eventRow(event, version, slot.sendTime, fault, 'poison', kind);
        if (kind === 'empty') {
          // No event travels in zero bytes: the row names none, like random bytes (the key still routes it).
          row.event_id = null;
          row.event_type = null;
          row.event_time = null;
          row.amount_cents = null;
          row.schema_version = null;
        }
        return this.send(slot, event.session_id, bytes, row);
      }
      case 'poison_truncated': {
        const row = this.eventRow(event, version, slot.sendTime, fault, 'poison', 'truncated');
        return this.send(slot, event.session_id, truncatedPoison(encoded, p, slot.sendTime), row);
      }
      case 'poison_unknown_fingerprint': {
        // No released schema wrote these bytes, so the ledger names none.
        const row = this.eventRow(
          event,
          null,
          slot.sendTime,
          fault,
          'poison',
          'unknown_fingerprint',
        );
        return this.send(slot, event.session_id, unknownFingerprintPoison(encoded, p), row);
      }
      case 'poison_bad_magic': {
        const row = this.eventRow(event, version, slot.sendTime, fault, 'poison', 'bad_magic');
        return this.send(slot, event.session_id, badMagicPoison(encoded, p), row);
      }
    }
  }

  private contractBaseType(kind: ContractBreak): EventType {
    const p = this.poisonPrng;
    if (kind === 'missing_product')
      return p.pick(['product_view', 'add_to_cart', 'remove_from_cart'] as const);
    if (kind === 'invalid_quantity') return p.pick(['add_to_cart', 'remove_from_cart'] as const);
    if (kind === 'missing_amount') return p.pick(['payment_succeeded', 'payment_failed'] as const);
    if (kind === 'absurd_event_time' || kind === 'invalid_field')
      return p.pick(['page_view', 'product_view', 'checkout_started'] as const);
    return p.pick(['checkout_started', 'payment_succeeded', 'payment_failed'] as const);
  }
}
