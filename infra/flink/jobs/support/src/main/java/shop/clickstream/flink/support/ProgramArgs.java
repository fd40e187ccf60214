package shop.clickstream.flink.support;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * A job's program arguments, {@code --key value} pairs, checked against the keys the job knows. Each getter takes the
 * default and the allowed values, and fails with the argument, its value and what was expected.
 */
public final class ProgramArgs {
  private final Map<String, String> values;

  private ProgramArgs(Map<String, String> values) {
    this.values = values;
  }

  /** Fails on a key the job does not know (listing those it does) and on a key without a value. */
  public static ProgramArgs parse(String[] args, Set<String> keys) {
    Map<String, String> map = new HashMap<>();
    for (int i = 0; i < args.length; i += 2) {
      String key = args[i];
      if (!key.startsWith("--") || !keys.contains(key.substring(2))) {
        throw new IllegalArgumentException("unknown program argument '" + key + "'; expected one of --"
            + String.join(", --", keys.stream().sorted().toList()));
      }
      if (i + 1 >= args.length) throw new IllegalArgumentException("program argument " + key + " has no value");
      map.put(key.substring(2), args[i + 1]);
    }
    return new ProgramArgs(map);
  }

  /** The value as given, or {@code dflt}. */
  public String text(String key, String dflt) {
    return values.getOrDefault(key, dflt);
  }

  /** The value as given, or null. */
  public String optional(String key) {
    return values.get(key);
  }

  public long number(String key, long dflt, long min, long max) {
    String raw = values.get(key);
    if (raw == null) return dflt;
    return checked(key, raw, "an integer in [" + min + ", " + max + "]", s -> {
      long v = Long.parseLong(s.trim());
      return v >= min && v <= max ? v : null;
    });
  }

  public String oneOf(String key, String dflt, List<String> allowed) {
    return checked(key, values.getOrDefault(key, dflt), "one of " + allowed, s -> allowed.contains(s) ? s : null);
  }

  /** {@code on} or {@code off}. */
  public boolean onOff(String key, String dflt) {
    return oneOf(key, dflt, List.of("off", "on")).equals("on");
  }

  /** Lower-case letters, digits and underscores, as Iceberg namespaces and tables are named here. */
  public String identifier(String key, String dflt) {
    return checked(key, values.getOrDefault(key, dflt), "an identifier [a-z0-9_]+", s -> s.matches("[a-z0-9_]+") ? s : null);
  }

  private static <T> T checked(String key, String raw, String expected, Function<String, T> parse) {
    T v;
    try {
      v = parse.apply(raw);
    } catch (RuntimeException e) {
      v = null;
    }
    if (v == null) throw new IllegalArgumentException("--" + key + "='" + raw + "': expected " + expected);
    return v;
  }
}
