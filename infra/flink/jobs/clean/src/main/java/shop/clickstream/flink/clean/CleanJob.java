package shop.clickstream.flink.clean;

import java.io.File;
import java.util.Locale;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateChangelogOptions;
import org.apache.flink.contrib.streaming.state.RocksDBConfigurableOptions;
import org.apache.flink.contrib.streaming.state.RocksDBOptions;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.flink.util.FlinkCompatibilityUtil;
import org.rocksdb.CompactionStyle;
import shop.clickstream.flink.support.KafkaSinks;
import shop.clickstream.flink.support.KafkaSources;
import shop.clickstream.flink.support.RocksDBMemtables;

/**
 * Entry point of the Flink job "clean": events.valid (read_committed) -> dedup on event_id -> events.clean through
 * the two-phase-commit Kafka sink, and -> an Iceberg table. Both sinks commit on checkpoint completion, so the two
 * outputs hold the same events exactly once. The Kafka sink commits at every checkpoint (every second by default);
 * {@link IcebergCadence} lets rows reach the Iceberg sink only once per --iceberg-commit-interval-ms (5 s), so the table
 * gets one snapshot per interval, not per checkpoint. The table's old snapshots are expired by
 * {@link IcebergSnapshotExpiry}.
 */
public final class CleanJob {
  private CleanJob() {}

  public static void main(String[] args) throws Exception {
    CleanJobConfig c = CleanJobConfig.parse(args);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(jobConfiguration(c));
    env.setParallelism(c.parallelism);
    // No defensive copy of each record between chained operators (dedup -> Kafka sink and -> row mapper -> hold ->
    // Iceberg writer): 7.5 % of the task thread's on-CPU samples were RowData copies (docs/MEASUREMENTS.md,
    // "Where the clean job's task thread spends its time"). Nothing here changes a record it receives or keeps one
    // after passing it on: the Kafka serializer's record is copied into the producer's batch within send(), the row
    // mapper builds a new row from immutable fields, and the hold keeps those new rows, not its input's buffers.
    env.getConfig().enableObjectReuse();
    if (c.checkpointDir != null) env.getCheckpointConfig().setCheckpointStorage(c.checkpointDir);

    DataStream<ValidRecord> valid = env
        .fromSource(source(c), WatermarkStrategy.noWatermarks(), "source: " + c.validTopic)
        .uid("valid-source");
    DataStream<ValidRecord> clean = valid
        .keyBy(r -> r.eventId)
        .process(new Deduplicate(c.dedupTtlMs))
        .uid("dedup")
        .name("dedup on event_id");

    clean.sinkTo(cleanSink(c)).uid("clean-sink").name("sink: " + c.cleanTopic);

    // Resolved here (in the JobManager) so that every TaskManager gets the same absolute location.
    String warehouse = new File(c.warehouse.replaceFirst("^file:(//)?", "")).getAbsolutePath();
    CatalogLoader catalog = IcebergEvents.catalogLoader(warehouse);
    TableIdentifier table = IcebergEvents.identifier(c.icebergNamespace, c.icebergTable);
    IcebergEvents.ensureTable(catalog, table, c.parquetCodec, c.icebergSnapshotMaxAgeMs, c.icebergSnapshotsRetained,
        c.metadataVersionsKept());
    TypeInformation<RowData> rowType = FlinkCompatibilityUtil.toTypeInfo(FlinkSchemaUtil.convert(IcebergEvents.SCHEMA));
    DataStream<RowData> rows = clean
        .map(new IcebergEvents.ToRow(), rowType)
        .uid("iceberg-rows")
        .name("to iceberg row")
        .transform("hold for iceberg (" + c.icebergCommitIntervalMs + " ms)", rowType,
            new IcebergCadence<>(rowType, c.icebergCommitIntervalMs))
        .uid("iceberg-cadence");
    FlinkSink.forRowData(rows)
        .tableLoader(TableLoader.fromCatalog(catalog, table))
        .distributionMode(DistributionMode.NONE)
        .writeParallelism(c.parallelism)
        .uidPrefix("iceberg")
        .append();
    // Always in the graph, also when off (never triggered): its operators keep state, and a checkpoint holding state of
    // operators the program lacks does not restore, so turning compaction off would otherwise block every resume.
    IcebergCompaction.append(env, TableLoader.fromCatalog(catalog, table), c);
    if (c.icebergExpiryIntervalMs > 0) {
      clean
          .filter(new IcebergSnapshotExpiry(TableLoader.fromCatalog(catalog, table), c.icebergSnapshotMaxAgeMs,
              c.icebergSnapshotsRetained, c.icebergExpiryIntervalMs))
          .uid("iceberg-snapshot-expiry")
          .name("iceberg snapshot expiry")
          .sinkTo(new DiscardingSink<>())
          .uid("iceberg-snapshot-expiry-end")
          .name("no output");
    }

    env.execute(c.jobName);
  }

  static Configuration jobConfiguration(CleanJobConfig c) {
    // A failed checkpoint (e.g. a broker down) should not restart the job; the next one will carry the data.
    Configuration conf = c.checkpointing().configuration();
    // RocksDB keeps the dedup keys off the shared heap; incremental checkpoints upload only new SST files, so a
    // checkpoint every few seconds does not rewrite millions of keys.
    conf.set(StateBackendOptions.STATE_BACKEND, c.stateBackend);
    if (c.stateBackend.equals("rocksdb")) {
      conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
      conf.set(RocksDBConfigurableOptions.COMPACTION_STYLE, CompactionStyle.valueOf(c.rocksdbCompaction.toUpperCase(Locale.ROOT)));
      conf.set(RocksDBOptions.OPTIONS_FACTORY, DedupRocksDBOptions.class.getName());
      conf.set(DedupRocksDBOptions.COMPACTION_TRIGGER, c.rocksdbCompactionTrigger);
      conf.set(RocksDBConfigurableOptions.USE_BLOOM_FILTER, c.rocksdbBloomFilter);
      conf.set(RocksDBOptions.USE_PARTITIONED_INDEX_FILTERS, c.rocksdbPartitionedIndex);
    }
    // The storage is the cluster's (state.changelog.storage and its base path in the TaskManagers' config).
    if (c.changelog) {
      conf.set(StateChangelogOptions.ENABLE_STATE_CHANGE_LOG, true);
      // Without a flush at every checkpoint the memtables grow toward their share of the slot's managed memory, which
      // the block cache then lacks; 8 MB flushes about once a minute at 2,000 events/s (experiment, MEASUREMENTS).
      if (c.stateBackend.equals("rocksdb")) conf.set(RocksDBConfigurableOptions.WRITE_BUFFER_SIZE, RocksDBMemtables.SMALL_WRITE_BUFFER);
    }
    return conf;
  }

  static KafkaSource<ValidRecord> source(CleanJobConfig c) {
    // The gatekeeper writes transactionally.
    return KafkaSources.readCommitted(c.bootstrap, c.validTopic, c.groupId, c.startingOffsets, c.jobName + "-source",
        new ValidRecordDeserializer());
  }


  static KafkaSink<ValidRecord> cleanSink(CleanJobConfig c) {
    // The transaction timeout outlasts the worst run of failed checkpoints plus a restart (CleanJobConfig).
    return KafkaSinks.exactlyOnce(c.bootstrap, new CleanRecordSerializer(c.cleanTopic), c.transactionalIdPrefix,
        c.transactionTimeoutMs, c.sinkCompression, c.sinkLingerMs);
  }
}
