/**
 * Dense ids for pairs of numbers (an interned string's code and a time, two codes): a hash table
 * over typed arrays, so that looking up one of millions of aggregate keys builds no string and no
 * object (the string-keyed Maps it replaces spent most of their time building and hashing keys).
 */

const EMPTY = -1;
const TWO_32 = 4294967296;

/** Equal as the decimal text of a key would be: NaN equals NaN, and -0 equals 0. */
function same(x: number, y: number): boolean {
  return x === y || (x !== x && y !== y);
}

/** Mixes both 32-bit words of each number (epoch ms exceed 32 bits); NaN and -0 hash like their equals. */
function hash(a: number, b: number): number {
  let h = Math.imul((a | 0) ^ ((a / TWO_32) | 0), 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 15) ^ (b | 0), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13) ^ ((b / TWO_32) | 0), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

export class PairIds {
  private firsts = new Float64Array(16);
  private seconds = new Float64Array(16);
  /** Open addressing, linear probing: an id per slot, EMPTY where none; at most half full. */
  private slots = new Int32Array(32).fill(EMPTY);
  size = 0;

  first(id: number): number {
    return this.firsts[id] as number;
  }

  second(id: number): number {
    return this.seconds[id] as number;
  }

  /** The id of (a, b), or -1 when the pair has none. */
  find(a: number, b: number): number {
    const mask = this.slots.length - 1;
    for (let i = hash(a, b) & mask; ; i = (i + 1) & mask) {
      const id = this.slots[i] as number;
      if (id === EMPTY) return -1;
      if (same(this.firsts[id] as number, a) && same(this.seconds[id] as number, b)) return id;
    }
  }

  /** The id of (a, b), given the next free one (this.size before the call) when the pair is new. */
  idOf(a: number, b: number): number {
    const mask = this.slots.length - 1;
    let i = hash(a, b) & mask;
    for (; ; i = (i + 1) & mask) {
      const id = this.slots[i] as number;
      if (id === EMPTY) break;
      if (same(this.firsts[id] as number, a) && same(this.seconds[id] as number, b)) return id;
    }
    const id = this.size++;
    if (id === this.firsts.length) this.growPairs();
    this.firsts[id] = a;
    this.seconds[id] = b;
    this.slots[i] = id;
    if (this.size * 2 > this.slots.length) this.rehash();
    return id;
  }

  private growPairs(): void {
    const firsts = new Float64Array(this.firsts.length * 2);
    firsts.set(this.firsts);
    this.firsts = firsts;
    const seconds = new Float64Array(this.seconds.length * 2);
    seconds.set(this.seconds);
    this.seconds = seconds;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2).fill(EMPTY);
    const mask = slots.length - 1;
    for (let id = 0; id < this.size; id++) {
      let i = hash(this.firsts[id] as number, this.seconds[id] as number) & mask;
      while (slots[i] !== EMPTY) i = (i + 1) & mask;
      slots[i] = id;
    }
    this.slots = slots;
  }
}
