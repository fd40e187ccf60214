import fc from 'fast-check';
import { parseSeqHeader } from '@clickstream/contracts';
import { NO_SEQ, SEQ_OUT_OF_RANGE, seqFromHeader, toIndexSeq } from './contents';

/** What the byte parser must return: parseSeqHeader's answer, mapped to the index's conventions. */
function expected(buf: Buffer): number {
  return toIndexSeq(parseSeqHeader(buf));
}

describe('seqFromHeader', () => {
  it.each([
    '0',
    '7',
    '42',
    '2147483646',
    '2147483647',
    '9007199254740991',
    '9007199254740992',
    '99999999999999999',
    '007',
    '',
    '-1',
    '1e3',
    ' 1',
    '1 ',
    '+1',
    '١',
  ])('agrees with parseSeqHeader on %j', (text) => {
    expect(seqFromHeader(Buffer.from(text))).toBe(expected(Buffer.from(text)));
  });

  it('agrees with parseSeqHeader on arbitrary bytes and digit strings', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 20 }),
          fc.stringMatching(/^[0-9]{0,18}$/).map((s) => Buffer.from(s)),
        ),
        (bytes) => {
          const buf = Buffer.from(bytes);
          expect(seqFromHeader(buf)).toBe(expected(buf));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('maps absent to NO_SEQ and large seqs to SEQ_OUT_OF_RANGE', () => {
    expect(seqFromHeader(undefined)).toBe(NO_SEQ);
    expect(seqFromHeader(Buffer.from('3000000000'))).toBe(SEQ_OUT_OF_RANGE);
  });
});
