import { RowBinaryRows } from './row-binary';
import { encodeRowBinaryInsert, rowBinaryColumns, type DescribedColumn } from './row-binary-insert';

const col = (name: string, type: string, default_type = ''): DescribedColumn => ({
  name,
  type,
  default_type,
});

describe('RowBinary inserts', () => {
  it('writes each type at its width, little-endian, with a null byte before a Nullable value', () => {
    const columns = rowBinaryColumns('t', [
      col('s', 'String'),
      col('u8', 'UInt8'),
      col('i32', 'Int32'),
      col('n', 'Nullable(Int64)'),
      col('u64', 'UInt64'),
    ]);
    const { columns: names, body } = encodeRowBinaryInsert('t', columns, [
      { s: 'é', u8: 255, i32: -2, n: null, u64: 2 ** 53 - 1 },
      { s: '', u8: 0, i32: 7, n: -1, u64: 0 },
    ]);
    expect(names).toEqual(['s', 'u8', 'i32', 'n', 'u64']);
    expect(body.toString('hex')).toBe(
      [
        '02c3a9', // 'é': two UTF-8 bytes
        'ff',
        'feffffff',
        '01', // NULL, nothing follows
        'ffffffffffff1f00',
        '00', // ''
        '00',
        '07000000',
        '00ffffffffffffffff', // not NULL, then -1
        '0000000000000000',
      ].join(''),
    );
  });

  it('reads back what it wrote, strings of every length class and 64-bit extremes included', () => {
    const described = [
      col('a', 'String'),
      col('b', 'Int64'),
      col('c', 'UInt64'),
      col('d', 'UInt32'),
    ];
    const rows = [
      { a: 'x'.repeat(42), b: -(2 ** 53) + 1, c: 2 ** 32, d: 2 ** 32 - 1 },
      { a: 'ü'.repeat(42), b: 2 ** 53 - 1, c: 1, d: 0 }, // 84 bytes: still a one-byte length
      { a: 'y'.repeat(43), b: -(2 ** 32), c: 0, d: 1 },
      { a: '€'.repeat(70_000), b: -1, c: 2 ** 40 + 3, d: 5 }, // 210,000 bytes: a three-byte length
    ];
    const { body } = encodeRowBinaryInsert('t', rowBinaryColumns('t', described), rows);
    const back: unknown[] = [];
    const reader = new RowBinaryRows(['String', 'Int64', 'UInt64', 'UInt32'], (r) =>
      back.push([...r]),
    );
    reader.push(body.subarray(0, 100)); // split mid-row, as HTTP chunks may be
    reader.push(body.subarray(100));
    reader.end();
    expect(back).toEqual(rows.map((r) => [r.a, r.b, r.c, r.d]));
  });

  it('leaves MATERIALIZED and ALIAS columns to the server, and a DEFAULT column the first row lacks', () => {
    const columns = rowBinaryColumns('t', [
      col('a', 'UInt8'),
      col('m', 'UInt8', 'MATERIALIZED'),
      col('l', 'UInt8', 'ALIAS'),
      col('d', 'UInt8', 'DEFAULT'),
    ]);
    expect(encodeRowBinaryInsert('t', columns, [{ a: 1 }]).columns).toEqual(['a']);
    expect(encodeRowBinaryInsert('t', columns, [{ a: 1, d: 2 }]).columns).toEqual(['a', 'd']);
    expect(() => encodeRowBinaryInsert('t', columns, [{ a: 1 }, { a: 1, d: 2 }])).toThrow(
      'row 1 has d, a DEFAULT column that row 0 does not have',
    );
    expect(() => encodeRowBinaryInsert('t', columns, [{ a: 1, d: 2 }, { a: 1 }])).toThrow(
      'row 1 has no d, a DEFAULT column that row 0 has',
    );
    expect(() => encodeRowBinaryInsert('t', columns, [{ a: 1, m: 2 }])).toThrow(
      'row 0 has m, which is no insertable column',
    );
  });

  it("gives an omitted ordinary column its type's default, as JSONEachRow does", () => {
    const columns = rowBinaryColumns('t', [
      col('s', 'String'),
      col('n', 'Nullable(String)'),
      col('i', 'Int64'),
      col('u', 'UInt16'),
    ]);
    const { columns: names, body } = encodeRowBinaryInsert('t', columns, [
      { s: 'a', n: 'b', i: 1, u: 2 },
      { s: undefined },
    ]);
    expect(names).toEqual(['s', 'n', 'i', 'u']);
    expect(body.toString('hex')).toBe(
      '0161' + '000162' + '0100000000000000' + '0200' + '00' + '01' + '0000000000000000' + '0000',
    );
  });

  it('names table, column and type of a type it does not write', () => {
    expect(() => rowBinaryColumns('t', [col('a', 'String'), col('f', 'Float64')])).toThrow(
      'RowBinary insert into t: column f has type Float64, which this encoder does not write',
    );
    expect(() => rowBinaryColumns('t', [col('x', 'Array(String)')])).toThrow('Array(String)');
  });

  it.each([
    [{ a: 1, n: 1 }, 'row 0 has n, which is no insertable column'],
    [{ a: null }, 'row 0, column a (UInt32): null in a column that is not Nullable'],
    [{ a: 1.5 }, 'row 0, column a (UInt32): expected an integer number, got 1.5'],
    [{ a: '1' }, 'row 0, column a (UInt32): expected an integer number, got string "1"'],
    [{ a: -1 }, "row 0, column a (UInt32): -1 is out of UInt32's range 0..4294967295"],
    [{ a: 2 ** 32 }, "row 0, column a (UInt32): 4294967296 is out of UInt32's range"],
  ])('refuses %j with a specific error', (row, message) => {
    const columns = rowBinaryColumns('t', [col('a', 'UInt32')]);
    expect(() => encodeRowBinaryInsert('t', columns, [row])).toThrow(message);
  });

  it('checks the keys of every row, not only the first', () => {
    const columns = rowBinaryColumns('t', [col('a', 'UInt8')]);
    expect(() => encodeRowBinaryInsert('t', columns, [{ a: 1 }, { a: 2, typo: 3 }])).toThrow(
      'row 1 has typo, which is no insertable column',
    );
  });

  it('refuses 64-bit values that a JS number does not hold exactly, and strings given numbers', () => {
    const columns = rowBinaryColumns('t', [
      col('i', 'Int64'),
      col('u', 'UInt64'),
      col('s', 'Nullable(String)'),
    ]);
    const ok = { i: 0, u: 0, s: null };
    expect(() => encodeRowBinaryInsert('t', columns, [ok, { ...ok, i: 2 ** 53 }])).toThrow(
      'row 1, column i (Int64): 9007199254740992 is beyond 2^53, not exact',
    );
    expect(() => encodeRowBinaryInsert('t', columns, [ok, { ...ok, u: -1 }])).toThrow(
      'row 1, column u (UInt64): -1 is not in 0..2^53-1',
    );
    expect(() => encodeRowBinaryInsert('t', columns, [ok, { ...ok, s: 5 }])).toThrow(
      'row 1, column s (Nullable(String)): expected a string, got number',
    );
  });
});
