package shop.clickstream.flink.clean;

import java.util.Collection;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.contrib.streaming.state.ConfigurableRocksDBOptionsFactory;
import org.apache.flink.contrib.streaming.state.RocksDBOptionsFactory;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;

/**
 * RocksDB settings of the dedup state that Flink has no configuration key for (issue #16, docs/FLINK.md "Dedup
 * compaction"): how many sorted runs universal compaction lets pile up before it merges. Each 1 s checkpoint flushes a
 * small file of new event ids; at RocksDB's trigger of 4 runs, every such file was merged at once with the next run,
 * rewriting megabytes for a few thousand keys. Named in the job's configuration by
 * {@code state.backend.rocksdb.options-factory}; reads {@link #COMPACTION_TRIGGER} from it.
 */
public final class DedupRocksDBOptions implements ConfigurableRocksDBOptionsFactory {
  private static final long serialVersionUID = 1L;

  /** level0_file_num_compaction_trigger: with universal compaction, the number of sorted runs that starts a compaction. */
  public static final ConfigOption<Integer> COMPACTION_TRIGGER = ConfigOptions.key("clickstream.dedup.rocksdb.compaction-trigger")
      .intType()
      .defaultValue(4)
      .withDescription("Sorted runs (universal) or level-0 files (level) that start a compaction of the dedup state.");

  private int compactionTrigger = COMPACTION_TRIGGER.defaultValue();

  public int compactionTrigger() {
    return compactionTrigger;
  }

  @Override
  public RocksDBOptionsFactory configure(ReadableConfig configuration) {
    compactionTrigger = configuration.get(COMPACTION_TRIGGER);
    return this;
  }

  @Override
  public DBOptions createDBOptions(DBOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
    return currentOptions;
  }

  @Override
  public ColumnFamilyOptions createColumnOptions(ColumnFamilyOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
    // Writes slow down (20 files) and stop (36) at RocksDB's defaults; kept as far above a higher trigger.
    return currentOptions.setLevel0FileNumCompactionTrigger(compactionTrigger)
        .setLevel0SlowdownWritesTrigger(Math.max(currentOptions.level0SlowdownWritesTrigger(), compactionTrigger + 16))
        .setLevel0StopWritesTrigger(Math.max(currentOptions.level0StopWritesTrigger(), compactionTrigger + 32));
  }
}
