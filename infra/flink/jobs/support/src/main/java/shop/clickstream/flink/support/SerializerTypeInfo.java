package shop.clickstream.flink.support;

import java.util.Objects;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * A type information that hands out one serializer written by hand: for a record type named in a {@code @TypeInfo}
 * annotation, or a key type given to {@code keyBy(selector, type)}. Keys are partitioned by their {@code hashCode}, not
 * by their serializer.
 */
public final class SerializerTypeInfo<T> extends TypeInformation<T> {
  private static final long serialVersionUID = 1L;

  private final Class<T> type;
  private final TypeSerializer<T> serializer;
  private final boolean keyType;

  public SerializerTypeInfo(Class<T> type, TypeSerializer<T> serializer, boolean keyType) {
    this.type = type;
    this.serializer = serializer;
    this.keyType = keyType;
  }

  @Override
  public boolean isBasicType() {
    return false;
  }

  @Override
  public boolean isTupleType() {
    return false;
  }

  @Override
  public int getArity() {
    return 1;
  }

  @Override
  public int getTotalFields() {
    return 1;
  }

  @Override
  public Class<T> getTypeClass() {
    return type;
  }

  @Override
  public boolean isKeyType() {
    return keyType;
  }

  @Override
  public TypeSerializer<T> createSerializer(SerializerConfig config) {
    return serializer;
  }

  @Override
  @Deprecated
  public TypeSerializer<T> createSerializer(ExecutionConfig config) {
    return serializer;
  }

  @Override
  public String toString() {
    return type.getSimpleName() + " (" + serializer.getClass().getSimpleName() + ")";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SerializerTypeInfo<?> other && other.type == type && other.keyType == keyType
        && other.serializer.equals(serializer);
  }

  @Override
  public int hashCode() {
    return Objects.hash(type, serializer, keyType);
  }

  @Override
  public boolean canEqual(Object o) {
    return o instanceof SerializerTypeInfo;
  }
}
