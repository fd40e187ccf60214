import fc from 'fast-check';
import { formatSeqHeader, parseSeqHeader } from './headers';

describe('cs-seq header', () => {
  it('round-trips every non-negative safe integer, as string and as Buffer', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (seq) => {
        expect(parseSeqHeader(formatSeqHeader(seq))).toBe(seq);
        expect(parseSeqHeader(Buffer.from(formatSeqHeader(seq)))).toBe(seq);
      }),
    );
  });

  it.each([
    undefined,
    '',
    '-1',
    '+1',
    '01',
    '1.5',
    '1e3',
    ' 1',
    '1 ',
    '0x10',
    '12a',
    '9007199254740993',
    '99999999999999999',
  ])('rejects %p', (value) => {
    expect(parseSeqHeader(value)).toBeNull();
  });

  it('reads zero and never throws on arbitrary bytes', () => {
    expect(parseSeqHeader('0')).toBe(0);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 24 }), (bytes) => {
        const seq = parseSeqHeader(Buffer.from(bytes));
        return seq === null || Number.isSafeInteger(seq);
      }),
    );
  });

  it('refuses to format a seq that would not parse back', () => {
    expect(() => formatSeqHeader(-1)).toThrow(RangeError);
    expect(() => formatSeqHeader(1.5)).toThrow(RangeError);
  });
});
