/**
 * A structural walk of an Avro binary body against its writer schema, written from the Avro
 * specification and independent of avsc: it says whether the bytes are a complete encoding, and if
 * not, whether they end too soon (`truncated`) or cannot be an encoding at all (`malformed`).
 * The gatekeeper's reasons come from it, so that a negative length is never called "truncated".
 */

export type WalkResult =
  { ok: true; end: number } | { ok: false; kind: 'truncated' | 'malformed'; detail: string };

type Schema = string | Schema[] | { type: string | Schema; [k: string]: unknown };

class Stop extends Error {
  constructor(
    readonly kind: 'truncated' | 'malformed',
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** Avro's longest varint: 10 bytes for a 64-bit long, 5 for a 32-bit int. */
const MAX_VARINT_BYTES = { long: 10, int: 5 } as const;

class Reader {
  constructor(
    private readonly b: Uint8Array,
    public pos: number,
  ) {}

  /** A zig-zag varint, as a JS number (exact up to 2^53, which is all lengths and indexes need). */
  varint(kind: 'int' | 'long', what: string): number {
    let n = 0;
    let mul = 1;
    for (let i = 0; ; i++) {
      if (i >= MAX_VARINT_BYTES[kind]) {
        throw new Stop(
          'malformed',
          `${what}: ${kind} varint longer than ${MAX_VARINT_BYTES[kind]} bytes`,
        );
      }
      if (this.pos >= this.b.length) throw new Stop('truncated', `${what}: ends inside a varint`);
      const byte = this.b[this.pos++]!;
      n += (byte & 0x7f) * mul;
      mul *= 128;
      if ((byte & 0x80) === 0) break;
    }
    // Zig-zag: even -> n/2, odd -> -(n+1)/2 (arithmetic, exact within 2^53).
    const v = n % 2 === 0 ? n / 2 : -(n + 1) / 2;
    if (kind === 'int' && (v > 2147483647 || v < -2147483648)) {
      throw new Stop('malformed', `${what}: ${v} does not fit an int`);
    }
    return v;
  }

  skip(n: number, what: string): void {
    if (this.pos + n > this.b.length) {
      throw new Stop('truncated', `${what}: ${n} bytes, only ${this.b.length - this.pos} left`);
    }
    this.pos += n;
  }

  length(what: string): number {
    const n = this.varint('long', what);
    if (n < 0) throw new Stop('malformed', `${what}: negative length ${n}`);
    return n;
  }
}

function walkValue(r: Reader, s: Schema, what: string, named: Map<string, Schema>): void {
  if (Array.isArray(s)) {
    const i = r.varint('long', `${what} union index`);
    if (i < 0 || i >= s.length) {
      throw new Stop('malformed', `${what}: union index ${i} outside [0, ${s.length - 1}]`);
    }
    return walkValue(r, s[i]!, what, named);
  }
  if (typeof s === 'string') {
    switch (s) {
      case 'null':
        return;
      case 'boolean':
        return r.skip(1, what);
      case 'int':
        r.varint('int', what);
        return;
      case 'long':
        r.varint('long', what);
        return;
      case 'float':
        return r.skip(4, what);
      case 'double':
        return r.skip(8, what);
      case 'bytes':
      case 'string':
        return r.skip(r.length(`${what} ${s} length`), what);
      default: {
        const t = named.get(s);
        if (t === undefined) throw new Error(`avro-walk: unknown type ${s}`);
        return walkValue(r, t, what, named);
      }
    }
  }
  const t = s.type;
  if (typeof t !== 'string') return walkValue(r, t, what, named);
  if (typeof s['name'] === 'string') named.set(s['name'], s);
  switch (t) {
    case 'record':
      for (const f of s['fields'] as { name: string; type: Schema }[]) {
        walkValue(r, f.type, f.name, named);
      }
      return;
    case 'enum': {
      const symbols = s['symbols'] as string[];
      const i = r.varint('int', `${what} enum index`);
      if (i < 0 || i >= symbols.length) {
        throw new Stop('malformed', `${what}: enum index ${i} outside [0, ${symbols.length - 1}]`);
      }
      return;
    }
    case 'fixed':
      return r.skip(s['size'] as number, what);
    case 'array':
    case 'map':
      for (;;) {
        let count = r.varint('long', `${what} block count`);
        if (count === 0) return;
        if (count < 0) {
          count = -count;
          r.length(`${what} block size`);
        }
        for (let k = 0; k < count; k++) {
          if (t === 'map') r.skip(r.length(`${what} key length`), what);
          walkValue(r, (t === 'map' ? s['values'] : s['items']) as Schema, what, named);
        }
      }
    default:
      // A primitive written as { "type": "long", "logicalType": ... }.
      return walkValue(r, t, what, named);
  }
}

/** Walks `bytes` from `offset` as one value of the writer `schema` (parsed .avsc JSON). Never throws on data. */
export function walkAvro(schema: object, bytes: Uint8Array, offset = 0): WalkResult {
  const r = new Reader(bytes, offset);
  try {
    walkValue(r, schema as Schema, 'record', new Map());
    return { ok: true, end: r.pos };
  } catch (e) {
    if (e instanceof Stop) return { ok: false, kind: e.kind, detail: e.detail };
    throw e;
  }
}
