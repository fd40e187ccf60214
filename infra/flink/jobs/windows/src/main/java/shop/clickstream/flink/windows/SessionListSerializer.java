package shop.clickstream.flink.windows;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.ListSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import shop.clickstream.flink.windows.SessionAggregator.Session;

/**
 * The state serializer of a key's session list: a count, then per session five longs and one flag byte, written and
 * read field by field. It replaces {@code Types.LIST(Types.POJO(Session.class))}, whose POJO serializer reads and
 * writes every field by reflection and is called on every event and every timer (with RocksDB, each state read
 * deserializes the whole list and each update serializes it again).
 *
 * <p>State written by that old serializer is migrated on restore: {@link Snapshot} answers "compatible after
 * migration" for it, so the backend reads the old bytes with the old serializer and writes them with this one
 * (RocksDB rewrites every entry; the heap backend holds objects already). The objects are the same {@link Session}s.
 */
public final class SessionListSerializer extends RecordSerializer<List<Session>> {
  private static final long serialVersionUID = 1L;

  public static final SessionListSerializer INSTANCE = new SessionListSerializer();

  private static final int CONVERTED = 1;
  private static final int FINAL_EMITTED = 2;
  private static final int DIRTY = 4;

  @Override
  public List<Session> createInstance() {
    return new ArrayList<>();
  }

  @Override
  public List<Session> copy(List<Session> from) {
    List<Session> to = new ArrayList<>(from.size());
    for (Session s : from) to.add(copy(s));
    return to;
  }

  private static Session copy(Session s) {
    Session c = new Session();
    c.start = s.start;
    c.end = s.end;
    c.eventCount = s.eventCount;
    c.revenueCents = s.revenueCents;
    c.converted = s.converted;
    c.version = s.version;
    c.finalEmitted = s.finalEmitted;
    c.dirty = s.dirty;
    return c;
  }

  @Override
  public void serialize(List<Session> list, DataOutputView out) throws IOException {
    out.writeInt(list.size());
    for (Session s : list) {
      out.writeLong(s.start);
      out.writeLong(s.end);
      out.writeLong(s.eventCount);
      out.writeLong(s.revenueCents);
      out.writeLong(s.version);
      out.writeByte((s.converted ? CONVERTED : 0) | (s.finalEmitted ? FINAL_EMITTED : 0) | (s.dirty ? DIRTY : 0));
    }
  }

  @Override
  public List<Session> deserialize(DataInputView in) throws IOException {
    int n = in.readInt();
    List<Session> list = new ArrayList<>(n + 1);
    for (int i = 0; i < n; i++) {
      Session s = new Session();
      s.start = in.readLong();
      s.end = in.readLong();
      s.eventCount = in.readLong();
      s.revenueCents = in.readLong();
      s.version = in.readLong();
      int flags = in.readByte();
      s.converted = (flags & CONVERTED) != 0;
      s.finalEmitted = (flags & FINAL_EMITTED) != 0;
      s.dirty = (flags & DIRTY) != 0;
      list.add(s);
    }
    return list;
  }

  @Override
  public TypeSerializerSnapshot<List<Session>> snapshotConfiguration() {
    return new Snapshot();
  }

  /** Version 1 of the format above; migrates from the POJO list serializer the job used before. */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<List<Session>> {
    public Snapshot() {
      super(() -> INSTANCE);
    }

    @Override
    public TypeSerializerSchemaCompatibility<List<Session>> resolveSchemaCompatibility(
        TypeSerializerSnapshot<List<Session>> oldSerializerSnapshot) {
      if (oldSerializerSnapshot instanceof ListSerializerSnapshot) {
        return TypeSerializerSchemaCompatibility.compatibleAfterMigration();
      }
      return super.resolveSchemaCompatibility(oldSerializerSnapshot);
    }
  }
}
