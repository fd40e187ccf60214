/**
 * The keys of window and session rows as dense ids: (run_id, text, time), where text and time are
 * (event_type, window_start) for a window and (session_id, session_start) for a session. Two rows
 * get one id exactly when their key strings (windowKey, sessionKey) are equal; the string itself is
 * built only for the few keys a report shows.
 */

import { sessionKey, windowKey } from '@clickstream/contracts';
import { PairIds } from './pair-ids';

/** Which aggregate a layer holds. */
export type AggregateKind = 'windows' | 'sessions';

export function formatKey(kind: AggregateKind, runId: string, text: string, time: number): string {
  return kind === 'windows'
    ? windowKey({ run_id: runId, window_start: time, event_type: text })
    : sessionKey({ run_id: runId, session_id: text, session_start: time });
}

/** Whether `key` is the key string of (runId, text, time), without building that string. */
export function isKeyOf(
  key: string,
  kind: AggregateKind,
  runId: string,
  text: string,
  time: number,
): boolean {
  const t = String(time);
  if (key.length !== runId.length + text.length + t.length + 2) return false;
  const [second, third] = kind === 'windows' ? [t, text] : [text, t];
  const at = runId.length + 1;
  return (
    key.startsWith(runId) &&
    key.charCodeAt(runId.length) === 124 && // '|'
    key.startsWith(second, at) &&
    key.charCodeAt(at + second.length) === 124 &&
    key.endsWith(third)
  );
}

export class AggregateKeys {
  /** Run ids and texts share one table of codes (a pair below says which is which). */
  private readonly codes = new Map<string, number>();
  private readonly strings: string[] = [];
  /** (text code, run code) -> part code. */
  private readonly parts = new PairIds();
  /** (part code, time) -> key id. */
  private readonly ids = new PairIds();
  private readonly runIds: string[] = [];
  private lastRun: string | undefined;
  private lastRunCode = 0;
  /**
   * Parts name a key exactly while no two run ids could make one key string: with a run id that
   * holds '|' beside another run id they can ("r|1" + "a" and "r" + "1|a"). From then on ids go by
   * the key string itself (never on a real run: one run id, without '|').
   */
  private byString: Map<string, number> | undefined;

  constructor(readonly kind: AggregateKind) {}

  get size(): number {
    return this.ids.size;
  }

  private codeOf(s: string): number {
    let code = this.codes.get(s);
    if (code === undefined) {
      code = this.strings.length;
      this.strings.push(s);
      this.codes.set(s, code);
    }
    return code;
  }

  private useRun(runId: string): void {
    this.lastRunCode = this.codeOf(runId);
    this.lastRun = runId;
    if (this.runIds.includes(runId)) return;
    this.runIds.push(runId);
    if (
      this.byString === undefined &&
      this.runIds.length > 1 &&
      this.runIds.some((r) => r.includes('|'))
    ) {
      this.byString = new Map();
      for (let id = 0; id < this.size; id++) this.byString.set(this.keyOf(id), id);
    }
  }

  /** The key's id; a new key gets the next one (this.size before the call). */
  idOf(runId: string, text: string, time: number): number {
    // A reconciliation has one run id: the same string is asked for again and again.
    if (runId !== this.lastRun) this.useRun(runId);
    const part = this.parts.idOf(this.codeOf(text), this.lastRunCode);
    if (this.byString === undefined) return this.ids.idOf(part, time);
    const key = formatKey(this.kind, runId, text, time);
    let id = this.byString.get(key);
    if (id === undefined) {
      // Equal parts make equal strings, so parts not found by their string are new.
      id = this.ids.idOf(part, time);
      this.byString.set(key, id);
    }
    return id;
  }

  runIdOf(id: number): string {
    return this.strings[this.parts.second(this.ids.first(id))] as string;
  }

  textOf(id: number): string {
    return this.strings[this.parts.first(this.ids.first(id))] as string;
  }

  timeOf(id: number): number {
    return this.ids.second(id);
  }

  keyOf(id: number): string {
    return formatKey(this.kind, this.runIdOf(id), this.textOf(id), this.timeOf(id));
  }
}
