package shop.clickstream.flink.windows;

import java.io.IOException;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;
import shop.clickstream.flink.support.SerializerTypeInfo;

/**
 * How a {@link CleanEvent} crosses the network between the job's tasks (the source task sends every on-time event to
 * both aggregators), field by field instead of Flink's POJO serializer, which reads and writes each of the 14 fields by
 * reflection. CleanEvent is never in state (only in flight, and aligned checkpoints keep nothing in flight), so the
 * format can change without a migration. A copy shares the byte arrays: no operator changes them after decoding.
 */
public final class CleanEventSerializer extends RecordSerializer<CleanEvent> {
  private static final long serialVersionUID = 1L;

  public static final CleanEventSerializer INSTANCE = new CleanEventSerializer();

  @Override
  public CleanEvent createInstance() {
    return new CleanEvent();
  }

  @Override
  public CleanEvent copy(CleanEvent from) {
    CleanEvent c = new CleanEvent();
    c.key = from.key;
    c.value = from.value;
    c.headerKeys = from.headerKeys;
    c.headerValues = from.headerValues;
    c.partition = from.partition;
    c.timestamp = from.timestamp;
    c.eventId = from.eventId;
    c.seq = from.seq;
    c.runId = from.runId;
    c.eventType = from.eventType;
    c.eventTime = from.eventTime;
    c.sessionId = from.sessionId;
    c.amountCents = from.amountCents;
    c.ingestTime = from.ingestTime;
    return c;
  }

  @Override
  public void serialize(CleanEvent e, DataOutputView out) throws IOException {
    writeBytes(e.key, out);
    writeBytes(e.value, out);
    if (e.headerKeys == null) {
      out.writeInt(-1);
    } else {
      out.writeInt(e.headerKeys.length);
      for (int i = 0; i < e.headerKeys.length; i++) {
        StringValue.writeString(e.headerKeys[i], out);
        writeBytes(e.headerValues[i], out);
      }
    }
    out.writeInt(e.partition);
    out.writeLong(e.timestamp);
    StringValue.writeString(e.eventId, out);
    out.writeLong(e.seq);
    StringValue.writeString(e.runId, out);
    StringValue.writeString(e.eventType, out);
    out.writeLong(e.eventTime);
    StringValue.writeString(e.sessionId, out);
    out.writeBoolean(e.amountCents != null);
    if (e.amountCents != null) out.writeLong(e.amountCents);
    out.writeLong(e.ingestTime);
  }

  @Override
  public CleanEvent deserialize(DataInputView in) throws IOException {
    CleanEvent e = new CleanEvent();
    e.key = readBytes(in);
    e.value = readBytes(in);
    int headers = in.readInt();
    if (headers >= 0) {
      e.headerKeys = new String[headers];
      e.headerValues = new byte[headers][];
      for (int i = 0; i < headers; i++) {
        e.headerKeys[i] = StringValue.readString(in);
        e.headerValues[i] = readBytes(in);
      }
    }
    e.partition = in.readInt();
    e.timestamp = in.readLong();
    e.eventId = StringValue.readString(in);
    e.seq = in.readLong();
    e.runId = StringValue.readString(in);
    e.eventType = StringValue.readString(in);
    e.eventTime = in.readLong();
    e.sessionId = StringValue.readString(in);
    e.amountCents = in.readBoolean() ? in.readLong() : null;
    e.ingestTime = in.readLong();
    return e;
  }

  private static void writeBytes(byte[] b, DataOutputView out) throws IOException {
    if (b == null) {
      out.writeInt(-1);
    } else {
      out.writeInt(b.length);
      out.write(b);
    }
  }

  private static byte[] readBytes(DataInputView in) throws IOException {
    int n = in.readInt();
    if (n < 0) return null;
    byte[] b = new byte[n];
    in.readFully(b);
    return b;
  }

  @Override
  public TypeSerializerSnapshot<CleanEvent> snapshotConfiguration() {
    return new Snapshot();
  }

  /** Version 1 of the format above. */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<CleanEvent> {
    public Snapshot() {
      super(() -> INSTANCE);
    }
  }

  /** The type information {@link CleanEvent} names in its {@code @TypeInfo}, so every operator of the job uses it. */
  public static final class TypeInfoFactoryImpl extends TypeInfoFactory<CleanEvent> {
    @Override
    public TypeInformation<CleanEvent> createTypeInfo(Type t, Map<String, TypeInformation<?>> genericParameters) {
      return new SerializerTypeInfo<>(CleanEvent.class, INSTANCE, false);
    }
  }
}
