package shop.clickstream.flink.windows;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * What the job's hand-written state serializers share: a mutable value of variable length, written field by field, that
 * is never reused. A subclass writes {@code createInstance}, {@code copy(from)}, {@code serialize}, {@code deserialize}
 * and its snapshot; copying a serialized value is reading it and writing it again.
 */
abstract class RecordSerializer<T> extends TypeSerializerSingleton<T> {
  private static final long serialVersionUID = 1L;

  @Override
  public final boolean isImmutableType() {
    return false;
  }

  @Override
  public final int getLength() {
    return -1;
  }

  @Override
  public final T copy(T from, T reuse) {
    return copy(from);
  }

  @Override
  public final T deserialize(T reuse, DataInputView in) throws IOException {
    return deserialize(in);
  }

  @Override
  public final void copy(DataInputView in, DataOutputView out) throws IOException {
    serialize(deserialize(in), out);
  }
}
