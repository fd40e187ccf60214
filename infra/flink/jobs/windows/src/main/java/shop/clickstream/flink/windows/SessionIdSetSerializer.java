package shop.clickstream.flink.windows;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * The state serializer of a {@link SessionIdSet}: the number of packed ids, each as two longs, then the number of other
 * ids, each as a string. Reading rebuilds the table at its final size, with no growing.
 */
public final class SessionIdSetSerializer extends RecordSerializer<SessionIdSet> {
  private static final long serialVersionUID = 1L;

  public static final SessionIdSetSerializer INSTANCE = new SessionIdSetSerializer();

  @Override
  public SessionIdSet createInstance() {
    return new SessionIdSet();
  }

  @Override
  public SessionIdSet copy(SessionIdSet from) {
    return from.copy();
  }

  @Override
  public void serialize(SessionIdSet s, DataOutputView out) throws IOException {
    out.writeInt(s.packedCount());
    s.forEachPacked((hi, lo) -> {
      out.writeLong(hi);
      out.writeLong(lo);
    });
    out.writeInt(s.others().size());
    for (String o : s.others()) StringValue.writeString(o, out);
  }

  @Override
  public SessionIdSet deserialize(DataInputView in) throws IOException {
    int n = in.readInt();
    SessionIdSet s = new SessionIdSet(n);
    for (int i = 0; i < n; i++) s.addPacked(in.readLong(), in.readLong());
    int others = in.readInt();
    for (int i = 0; i < others; i++) s.addOther(StringValue.readString(in));
    return s;
  }

  @Override
  public TypeSerializerSnapshot<SessionIdSet> snapshotConfiguration() {
    return new Snapshot();
  }

  /** Version 1 of the format above. */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<SessionIdSet> {
    public Snapshot() {
      super(() -> INSTANCE);
    }
  }
}
