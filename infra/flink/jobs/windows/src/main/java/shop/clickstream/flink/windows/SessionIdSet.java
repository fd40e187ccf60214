package shop.clickstream.flink.windows;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The distinct session ids of one window key, exact, kept compact for the heap state backend (issue #16): a session id
 * in the canonical lowercase UUID form (36 characters, what the generator and most clients send) is held as its 128 bits
 * in an open-addressing table of longs; any other id is held as its string. The canonical form maps one to one onto the
 * 128 bits, and only that form is packed, so two different ids never meet in the table ({@code "A..."} and
 * {@code "a..."} are different sessions and stay so).
 *
 * <p>Against a {@code MapState<String, Boolean>} on the heap backend this holds no object per session (the old form
 * held a map node, a string and its bytes), so a full snapshot writes 16 bytes per session in one loop and the garbage
 * collector has nothing per session to trace. Not thread-safe; Flink's heap backend copies it ({@link #copy}) when a
 * running snapshot needs the old version.
 */
public final class SessionIdSet {
  private static final int MIN_CAPACITY = 8;

  /** Pairs (high, low) of packed UUIDs; (0, 0) marks a free slot, the nil UUID itself is {@link #hasNil}. */
  private long[] table;
  private int packed;
  private boolean hasNil;
  private Set<String> others;

  public SessionIdSet() {
    this(0);
  }

  /** A set sized for {@code expected} packed ids without growing. */
  public SessionIdSet(int expected) {
    table = new long[2 * capacityFor(expected)];
  }

  private static int capacityFor(int n) {
    int cap = MIN_CAPACITY;
    while (cap < 2L * n) cap <<= 1; // load factor at most 1/2
    return cap;
  }

  public int size() {
    return packed + (hasNil ? 1 : 0) + (others == null ? 0 : others.size());
  }

  /** Adds {@code sessionId}; true when it was not in the set yet. */
  public boolean add(String sessionId) {
    if (!isCanonicalUuid(sessionId)) {
      if (others == null) others = new HashSet<>();
      return others.add(sessionId);
    }
    return addPacked(hex(sessionId, 0, 8) << 32 | hex(sessionId, 9, 13) << 16 | hex(sessionId, 14, 18),
        hex(sessionId, 19, 23) << 48 | hex(sessionId, 24, 36));
  }

  boolean addPacked(long hi, long lo) {
    if (hi == 0 && lo == 0) {
      boolean added = !hasNil;
      hasNil = true;
      return added;
    }
    int mask = table.length / 2 - 1;
    for (int i = slot(hi, lo, mask); ; i = (i + 1) & mask) {
      long h = table[2 * i], l = table[2 * i + 1];
      if (h == 0 && l == 0) {
        table[2 * i] = hi;
        table[2 * i + 1] = lo;
        if (++packed * 2 > mask + 1) grow();
        return true;
      }
      if (h == hi && l == lo) return false;
    }
  }

  private static int slot(long hi, long lo, int mask) {
    long x = hi * 0x9E3779B97F4A7C15L ^ lo;
    x ^= x >>> 33;
    x *= 0xFF51AFD7ED558CCDL;
    x ^= x >>> 33;
    return (int) x & mask;
  }

  private void grow() {
    long[] old = table;
    table = new long[old.length * 2];
    packed = 0;
    for (int i = 0; i < old.length; i += 2) {
      if (old[i] != 0 || old[i + 1] != 0) addPacked(old[i], old[i + 1]);
    }
  }

  /** 8-4-4-4-12 lowercase hex digits with dashes: the one spelling of each 128-bit value that is packed. */
  static boolean isCanonicalUuid(String s) {
    if (s.length() != 36) return false;
    for (int i = 0; i < 36; i++) {
      char c = s.charAt(i);
      boolean dash = i == 8 || i == 13 || i == 18 || i == 23;
      if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    }
    return true;
  }

  private static long hex(String s, int from, int to) {
    long v = 0;
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      v = v << 4 | (c <= '9' ? c - '0' : c - 'a' + 10);
    }
    return v;
  }

  /** A copy that shares nothing mutable with this set. */
  public SessionIdSet copy() {
    SessionIdSet c = new SessionIdSet();
    c.table = table.clone();
    c.packed = packed;
    c.hasNil = hasNil;
    c.others = others == null ? null : new HashSet<>(others);
    return c;
  }

  /** Every id in the set, packed ids spelled back in their canonical form; a new list, in no particular order. */
  public List<String> ids() {
    List<String> ids = new ArrayList<>(size());
    if (hasNil) ids.add(new UUID(0, 0).toString());
    for (int i = 0; i < table.length; i += 2) {
      if (table[i] != 0 || table[i + 1] != 0) ids.add(new UUID(table[i], table[i + 1]).toString());
    }
    ids.addAll(others());
    return ids;
  }

  // Access for the serializer.

  int packedCount() {
    return packed + (hasNil ? 1 : 0);
  }

  /** Calls {@code each} with every packed id (the nil UUID included) in table order. */
  void forEachPacked(PackedConsumer each) throws IOException {
    if (hasNil) each.accept(0, 0);
    for (int i = 0; i < table.length; i += 2) {
      if (table[i] != 0 || table[i + 1] != 0) each.accept(table[i], table[i + 1]);
    }
  }

  Set<String> others() {
    return others == null ? Set.of() : others;
  }

  void addOther(String s) {
    if (others == null) others = new HashSet<>();
    others.add(s);
  }

  @FunctionalInterface
  interface PackedConsumer {
    void accept(long hi, long lo) throws IOException;
  }
}
