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

  it('takes Kafka Utils.abs (Math.abs, Integer.MIN_VALUE to 0) of the hash, modulo the partitions', () => {
    expect(transactionStatePartition('polygenelubricants', 12)).toBe(0);
    expect(transactionStatePartition('hello', 12)).toBe(99162322 % 12);
    // "gatekeeper-0".hashCode() = -1341207072: Math.abs gives 1341207072 % 12 = 0, a sign-bit
    // mask would give 806276576 % 12 = 8.
    expect(transactionStatePartition('gatekeeper-0', 12)).toBe(0);
    // Group placement uses the same formula; broker logs of a CI rehearsal placed these groups on
    // these __consumer_offsets partitions (of 12).
    expect(transactionStatePartition('kt-bk-group-mx453fwg-3de267', 12)).toBe(9);
    expect(transactionStatePartition('kt-fence-group-mx454lb5-3688df', 12)).toBe(3);
    expect(transactionStatePartition('infra-test-mx451vka-xilo08', 12)).toBe(8);
  });
});
