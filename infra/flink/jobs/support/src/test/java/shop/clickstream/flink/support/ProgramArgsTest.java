package shop.clickstream.flink.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ProgramArgsTest {
  private static final Set<String> KEYS = Set.of("rate", "mode", "name", "flag", "dir");

  private static ProgramArgs args(String... a) {
    return ProgramArgs.parse(a, KEYS);
  }

  private static String failure(Runnable r) {
    return assertThrows(IllegalArgumentException.class, r::run).getMessage();
  }

  @Test
  void givesTheValuesOrTheDefaults() {
    ProgramArgs a = args("--rate", " 42 ", "--mode", "b", "--name", "events_clean", "--flag", "on");
    assertEquals(42, a.number("rate", 1, 0, 100));
    assertEquals("b", a.oneOf("mode", "a", List.of("a", "b")));
    assertEquals("events_clean", a.identifier("name", "x"));
    assertTrue(a.onOff("flag", "off"));
    assertNull(a.optional("dir"));
    assertEquals("/tmp", a.text("dir", "/tmp"));

    ProgramArgs none = args();
    assertEquals(7, none.number("rate", 7, 0, 100));
    assertFalse(none.onOff("flag", "off"));
    assertEquals("a", none.oneOf("mode", "a", List.of("a", "b")));
  }

  @Test
  void namesAnUnknownKeyAndTheKnownOnes() {
    assertEquals("unknown program argument '--speed'; expected one of --dir, --flag, --mode, --name, --rate",
        failure(() -> args("--speed", "1")));
    assertEquals("unknown program argument 'rate'; expected one of --dir, --flag, --mode, --name, --rate",
        failure(() -> args("rate", "1")));
    assertEquals("program argument --rate has no value", failure(() -> args("--mode", "a", "--rate")));
  }

  @Test
  void namesTheArgumentItsValueAndWhatWasExpected() {
    assertEquals("--rate='101': expected an integer in [0, 100]", failure(() -> args("--rate", "101").number("rate", 1, 0, 100)));
    assertEquals("--rate='ten': expected an integer in [0, 100]", failure(() -> args("--rate", "ten").number("rate", 1, 0, 100)));
    assertEquals("--mode='c': expected one of [a, b]", failure(() -> args("--mode", "c").oneOf("mode", "a", List.of("a", "b"))));
    assertEquals("--flag='yes': expected one of [off, on]", failure(() -> args("--flag", "yes").onOff("flag", "off")));
    assertEquals("--name='Events': expected an identifier [a-z0-9_]+",
        failure(() -> args("--name", "Events").identifier("name", "x")));
  }
}
