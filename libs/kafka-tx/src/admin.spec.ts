import { javaStringHashCode, transactionStatePartition } from './admin';

describe('transaction coordinator placement', () => {
  it("computes Java's String.hashCode, overflow included (values printed by Java 17)", () => {
    expect(javaStringHashCode('')).toBe(0);
    expect(javaStringHashCode('a')).toBe(97);
    expect(javaStringHashCode('hello')).toBe(99162322);
    expect(javaStringHashCode('hello world')).toBe(1794106052);
    expect(javaStringHashCode('polygenelubricants')).toBe(-2147483648);
    expect(javaStringHashCode('gatekeeper-0')).toBe(-1341207072);
    // UTF-16 code units, like Java: a character outside the BMP counts as two.
    expect(javaStringHashCode('\u{1F600}')).toBe(0xd83d * 31 + 0xde00);
  });

  it('masks the sign bit like Kafka Utils.abs, so Integer.MIN_VALUE lands in partition 0', () => {
    expect(transactionStatePartition('polygenelubricants', 12)).toBe(0);
    expect(transactionStatePartition('hello', 12)).toBe(99162322 % 12);
    const negative = 'gatekeeper-0-xyzzy';
    const h = javaStringHashCode(negative);
    expect(transactionStatePartition(negative, 50)).toBe((h & 0x7fffffff) % 50);
    expect(transactionStatePartition(negative, 50)).toBeGreaterThanOrEqual(0);
  });
});
