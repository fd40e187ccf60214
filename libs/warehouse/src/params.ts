/**
 * Client-side binding of `{name:Type}` query parameters. ClickHouse 18.16 has no server-side
 * parameters (it rejects `param_x` as an unknown setting), so values are rendered as literals here,
 * with types checked and strings escaped, giving the same SQL on 18.16 and current ClickHouse.
 */
import type { ParamValue, Params } from './types';

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*):([^{}:]+)\}/y;
const INT_TYPES = new Set([
  'UInt8',
  'UInt16',
  'UInt32',
  'UInt64',
  'Int8',
  'Int16',
  'Int32',
  'Int64',
]);
const FLOAT_TYPES = new Set(['Float32', 'Float64']);
const STRING_TYPES = new Set(['String', 'UUID']);

export class ParamError extends Error {
  override readonly name = 'ParamError';
}

/** A ClickHouse single-quoted string literal; backslash and quote escaped, NUL made visible. */
export function quoteString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\0/g, '\\0')}'`;
}

function renderScalar(name: string, type: string, value: unknown): string {
  if (STRING_TYPES.has(type)) {
    if (typeof value !== 'string')
      throw new ParamError(`param ${name}: expected a string for ${type}, got ${typeof value}`);
    return quoteString(value);
  }
  if (INT_TYPES.has(type)) {
    const text =
      typeof value === 'bigint'
        ? value.toString()
        : typeof value === 'number' && Number.isSafeInteger(value)
          ? String(value)
          : null;
    if (text === null)
      throw new ParamError(
        `param ${name}: expected a safe integer or bigint for ${type}, got ${String(value)}`,
      );
    if (type.startsWith('U') && text.startsWith('-'))
      throw new ParamError(
        `param ${name}: expected a non-negative integer for ${type}, got ${text}`,
      );
    return text;
  }
  if (FLOAT_TYPES.has(type)) {
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw new ParamError(
        `param ${name}: expected a finite number for ${type}, got ${String(value)}`,
      );
    return String(value);
  }
  throw new ParamError(
    `param ${name}: unsupported type ${type} (supported: String, UUID, [U]Int8..64, Float32/64, Bool, Array(...) of those)`,
  );
}

function render(name: string, type: string, value: ParamValue): string {
  const array = /^Array\((.+)\)$/.exec(type);
  if (array) {
    if (!Array.isArray(value)) throw new ParamError(`param ${name}: expected an array for ${type}`);
    return `[${(value as readonly unknown[]).map((v) => renderScalar(name, array[1] as string, v)).join(', ')}]`;
  }
  if (type === 'Bool') {
    if (typeof value !== 'boolean')
      throw new ParamError(`param ${name}: expected a boolean for Bool, got ${String(value)}`);
    return value ? '1' : '0';
  }
  return renderScalar(name, type, value);
}

/** Index just past the quoted literal or identifier that starts at `start` (backslash escapes honoured). */
function skipQuoted(sql: string, start: number): number {
  const quote = sql[start];
  let i = start + 1;
  while (i < sql.length) {
    const c = sql[i];
    if (c === '\\') i += 2;
    else if (c === quote) return i + 1;
    else i += 1;
  }
  return i;
}

/** Replaces every `{name:Type}` outside quotes with the literal of params[name]; throws ParamError on a missing or ill-typed value. */
export function bindParams(sql: string, params: Params = {}): string {
  let out = '';
  let i = 0;
  const used = new Set<string>();
  while (i < sql.length) {
    const c = sql[i] as string;
    if (c === "'" || c === '"' || c === '`') {
      const end = skipQuoted(sql, i);
      out += sql.slice(i, end);
      i = end;
      continue;
    }
    if (c === '{') {
      PLACEHOLDER.lastIndex = i;
      const m = PLACEHOLDER.exec(sql);
      if (m) {
        const [whole, name, rawType] = m as unknown as [string, string, string];
        const type = rawType.replace(/\s+/g, '');
        if (!Object.prototype.hasOwnProperty.call(params, name))
          throw new ParamError(`param ${name}: no value given`);
        out += render(name, type, params[name] as ParamValue);
        used.add(name);
        i += whole.length;
        continue;
      }
    }
    out += c;
    i += 1;
  }
  const unused = Object.keys(params).filter((k) => !used.has(k));
  if (unused.length > 0) throw new ParamError(`params not used by the query: ${unused.join(', ')}`);
  return out;
}
