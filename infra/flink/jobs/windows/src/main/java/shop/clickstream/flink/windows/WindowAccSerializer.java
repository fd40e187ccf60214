package shop.clickstream.flink.windows;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.java.typeutils.runtime.PojoSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;
import shop.clickstream.flink.windows.WindowAggregator.Acc;

/**
 * The state serializer of a window's aggregate, field by field; it replaces Flink's POJO serializer (reflection on
 * every field, on every event: with RocksDB each event reads and writes the aggregate). State written by the POJO
 * serializer migrates on restore ({@link Snapshot} answers "compatible after migration" for it), as in
 * {@link SessionListSerializer}.
 */
public final class WindowAccSerializer extends RecordSerializer<Acc> {
  private static final long serialVersionUID = 1L;

  public static final WindowAccSerializer INSTANCE = new WindowAccSerializer();

  private static final int FINAL_EMITTED = 1;
  private static final int DIRTY = 2;

  @Override
  public Acc createInstance() {
    return new Acc();
  }

  @Override
  public Acc copy(Acc from) {
    Acc c = new Acc();
    c.runId = from.runId;
    c.windowStart = from.windowStart;
    c.eventType = from.eventType;
    c.eventCount = from.eventCount;
    c.amountCentsSum = from.amountCentsSum;
    c.distinctSessions = from.distinctSessions;
    c.version = from.version;
    c.finalEmitted = from.finalEmitted;
    c.dirty = from.dirty;
    return c;
  }

  @Override
  public void serialize(Acc a, DataOutputView out) throws IOException {
    StringValue.writeString(a.runId, out);
    out.writeLong(a.windowStart);
    StringValue.writeString(a.eventType, out);
    out.writeLong(a.eventCount);
    out.writeLong(a.amountCentsSum);
    out.writeLong(a.distinctSessions);
    out.writeLong(a.version);
    out.writeByte((a.finalEmitted ? FINAL_EMITTED : 0) | (a.dirty ? DIRTY : 0));
  }

  @Override
  public Acc deserialize(DataInputView in) throws IOException {
    Acc a = new Acc();
    a.runId = StringValue.readString(in);
    a.windowStart = in.readLong();
    a.eventType = StringValue.readString(in);
    a.eventCount = in.readLong();
    a.amountCentsSum = in.readLong();
    a.distinctSessions = in.readLong();
    a.version = in.readLong();
    int flags = in.readByte();
    a.finalEmitted = (flags & FINAL_EMITTED) != 0;
    a.dirty = (flags & DIRTY) != 0;
    return a;
  }

  @Override
  public TypeSerializerSnapshot<Acc> snapshotConfiguration() {
    return new Snapshot();
  }

  /** Version 1 of the format above; migrates from the POJO serializer the job used before. */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<Acc> {
    public Snapshot() {
      super(() -> INSTANCE);
    }

    @Override
    public TypeSerializerSchemaCompatibility<Acc> resolveSchemaCompatibility(TypeSerializerSnapshot<Acc> oldSerializerSnapshot) {
      if (oldSerializerSnapshot instanceof PojoSerializerSnapshot) {
        return TypeSerializerSchemaCompatibility.compatibleAfterMigration();
      }
      return super.resolveSchemaCompatibility(oldSerializerSnapshot);
    }
  }
}
