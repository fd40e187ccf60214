package shop.clickstream.flink.support;

import org.apache.flink.configuration.MemorySize;

/** The RocksDB memtable size the jobs set where RocksDB's 64 MB default does not fit a slot's managed memory. */
public final class RocksDBMemtables {
  /**
   * 8 MB. A memtable takes arena blocks of an eighth of its size, and a slot's column families share that slot's
   * managed memory (about 58 MB here, half of it for memtables). Each job says where it sets this and why.
   */
  public static final MemorySize SMALL_WRITE_BUFFER = MemorySize.parse("8mb");

  private RocksDBMemtables() {}
}
