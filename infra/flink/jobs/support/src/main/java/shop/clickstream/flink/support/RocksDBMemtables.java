package shop.clickstream.flink.support;

import org.apache.flink.configuration.MemorySize;

/** The RocksDB memtable size the jobs set where RocksDB's 64 MB default does not fit a slot's managed memory. */
public final class RocksDBMemtables {
  /**
   * 8 MB. A memtable takes arena blocks of an eighth of its size, and all of a slot's column families share that slot's
   * managed memory (about 58 MB here, half of it for memtables): at 64 MB the windows job's nine column families
   * flushed about 34 times a second, and the clean job on the changelog backend (which flushes only at a
   * materialisation) left its block cache too little (docs/FLINK.md; each job says why it sets this).
   */
  public static final MemorySize SMALL_WRITE_BUFFER = MemorySize.parse("8mb");

  private RocksDBMemtables() {}
}
