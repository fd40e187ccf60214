import fc from 'fast-check';
import { encodeRowBinary, RowBinaryRows, type RowBinaryType } from './row-binary';

const TYPES: RowBinaryType[] = ['Int64', 'UInt32', 'UInt64', 'UInt8', 'String'];

function parse(types: RowBinaryType[], chunks: Buffer[]): (number | string)[][] {
  const out: (number | string)[][] = [];
  const p = new RowBinaryRows(types, (row) => out.push([...row]));
  for (const c of chunks) p.push(c);
  p.end();
  return out;
}

describe('RowBinaryRows', () => {
  it('reads each type at its width, 64-bit integers exact below 2^53, strings as UTF-8', () => {
    const rows = [
      [-(2 ** 53) + 1, 0, 0, 0, ''],
      [2 ** 53 - 1, 2 ** 32 - 1, 2 ** 53 - 1, 255, 'événement'],
      [-1, 7, 2 ** 40, 1, 'x'.repeat(300)], // a two-byte length
    ];
    expect(parse(TYPES, [encodeRowBinary(TYPES, rows)])).toEqual(rows);
  });

  it('gives the same rows however the response is cut into chunks', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.maxSafeInteger(),
            fc.nat({ max: 2 ** 32 - 1 }),
            fc.maxSafeNat(),
            fc.nat({ max: 255 }),
            fc.string({ unit: 'grapheme', maxLength: 200 }),
          ),
          { maxLength: 20 },
        ),
        fc.array(fc.nat(), { maxLength: 10 }),
        (rows, cuts) => {
          const bytes = encodeRowBinary(TYPES, rows);
          const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks = [0, ...at].map((start, i) => bytes.subarray(start, at[i] ?? bytes.length));
          expect(parse(TYPES, chunks)).toEqual(rows);
        },
      ),
    );
  });

  it('a response that ends inside a row is an error, not fewer rows', () => {
    const bytes = encodeRowBinary(TYPES, [
      [1, 2, 3, 4, 'five'],
      [6, 7, 8, 9, 'ten'],
    ]);
    expect(() => parse(TYPES, [bytes.subarray(0, bytes.length - 1)])).toThrow(
      /ended inside a row \(24 byte\(s\) after row 1\)/,
    );
  });

  it('the positional encoder refuses what its type cannot carry, naming row and column', () => {
    expect(() =>
      encodeRowBinary(
        ['UInt8', 'String'],
        [
          [1, 'a'],
          [2, 3 as unknown as string],
        ],
      ),
    ).toThrow(/row 1, column 1 \(String\): expected a string, got number/);
    expect(() => encodeRowBinary(['UInt32'], [[-1]])).toThrow(
      /row 0, column 0 \(UInt32\): -1 is out of/,
    );
  });

  it('refuses a string length longer than five bytes', () => {
    const bad = Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    expect(() => parse(['String'], [bad])).toThrow(/longer than 5 bytes/);
  });
});
