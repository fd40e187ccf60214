package shop.clickstream.flink.support;

import java.io.IOException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * Flink's {@link StringSerializer} format, byte for byte, written with one {@code write} call per string instead of one
 * per byte. {@code StringValue.writeString} writes the length + 1 and then every char, seven bits a byte, each byte a
 * call down the output stack; a heap-backend checkpoint writes through three streams, and 73 % of the windows job's
 * snapshot time was those calls for the sessions operator's keys and timers (docs/FLINK.md, "Key serializers").
 *
 * <p>Its snapshot is {@link StringSerializer}'s own: the bytes are the same, so checkpoints written with either one
 * restore with the other, in both directions, without migration.
 */
public final class BulkStringSerializer extends TypeSerializerSingleton<String> {
  private static final long serialVersionUID = 1L;

  public static final BulkStringSerializer INSTANCE = new BulkStringSerializer();

  /**
   * {@code String} with this serializer, for key types ({@code keyBy(selector, type)}): a heap-backend checkpoint writes
   * each key once per state entry and once per timer. Keys hash as {@code String}s, so each stays in its key group.
   */
  public static final TypeInformation<String> TYPE = new SerializerTypeInfo<>(String.class, INSTANCE, true);

  private static final int HIGH_BIT = 0x80;

  @Override
  public boolean isImmutableType() {
    return true;
  }

  @Override
  public String createInstance() {
    return "";
  }

  @Override
  public String copy(String from) {
    return from;
  }

  @Override
  public String copy(String from, String reuse) {
    return from;
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public void serialize(String s, DataOutputView out) throws IOException {
    if (s == null) {
      out.write(0);
      return;
    }
    int n = s.length();
    // At most 5 bytes of length and 3 per char (a char is 16 bits); the common ASCII key needs n + 1 or n + 2.
    byte[] buf = new byte[5 + 3 * n];
    int at = varint(n + 1, buf, 0);
    for (int i = 0; i < n; i++) at = varint(s.charAt(i), buf, at);
    out.write(buf, 0, at);
  }

  /** {@code v} as StringValue writes it: seven bits a byte, low bits first, the high bit set on all but the last. */
  private static int varint(int v, byte[] buf, int at) {
    while (v >= HIGH_BIT) {
      buf[at++] = (byte) (v | HIGH_BIT);
      v >>>= 7;
    }
    buf[at++] = (byte) v;
    return at;
  }

  @Override
  public String deserialize(DataInputView in) throws IOException {
    return StringValue.readString(in);
  }

  @Override
  public String deserialize(String reuse, DataInputView in) throws IOException {
    return StringValue.readString(in);
  }

  @Override
  public void copy(DataInputView in, DataOutputView out) throws IOException {
    StringValue.copyString(in, out);
  }

  @Override
  public TypeSerializerSnapshot<String> snapshotConfiguration() {
    return new StringSerializer.StringSerializerSnapshot();
  }
}
