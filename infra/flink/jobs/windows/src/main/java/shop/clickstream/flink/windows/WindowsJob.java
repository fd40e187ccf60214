package shop.clickstream.flink.windows;

import java.time.Duration;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateChangelogOptions;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.contrib.streaming.state.RocksDBConfigurableOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shop.clickstream.flink.support.KafkaSinks;
import shop.clickstream.flink.support.KafkaSources;
import shop.clickstream.flink.support.RocksDBMemtables;

/**
 * Entry point of the Flink job "windows": events.clean (read_committed) -> lateness by rule -> events.late (late
 * events, bytes unchanged), agg.windows (10 s tumbling per run and type) and agg.sessions (30 s gap per run and
 * session), on-time events only; probe events count in windows under their own run (the probe's windows layer)
 * and never in sessions. All three sinks are two-phase-commit Kafka sinks committed on checkpoint,
 * so the outputs, the aggregate state with its versions and the source offsets move together.
 *
 * <p>Event timestamps for Flink are the events' ingest_time, so the watermark (bounded out-of-orderness per Kafka
 * partition, idle partitions skipped) tracks ingest time. It decides when a row is final, never what it contains.
 */
public final class WindowsJob {
  private static final Logger LOG = LoggerFactory.getLogger(WindowsJob.class);

  private WindowsJob() {}

  public static void main(String[] args) throws Exception {
    WindowsJobConfig c = WindowsJobConfig.parse(args);
    LOG.info("windows job {}: lateness {} ms, watermark bound {} ms, idleness {} ms, state retention {} ms; may be down"
        + " {} ms and still recover its open transactions", c.jobName, c.latenessMs, c.outOfOrdernessMs, c.idlenessMs,
        c.stateRetentionMs, c.maxDowntimeMs());
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(jobConfiguration(c));
    pipeline(env, c);
    env.execute(c.jobName);
  }

  /** Builds the job's dataflow into {@code env} (separate from {@link #main} so that a test can inspect the graph). */
  static void pipeline(StreamExecutionEnvironment env, WindowsJobConfig c) {
    env.setParallelism(c.parallelism);
    // No defensive copy of every record between chained operators (source -> lateness -> late sink, each aggregator ->
    // its sink): no function here keeps or changes a record after passing it on (issue #16, docs/FLINK.md).
    env.getConfig().enableObjectReuse();
    if (c.checkpointDir != null) env.getCheckpointConfig().setCheckpointStorage(c.checkpointDir);

    DataStream<CleanEvent> clean = env
        // Named apart from the clean job's source, so its task thread ("Source: windows ...") can be told apart.
        .fromSource(source(c), watermarks(c), "windows source: " + c.cleanTopic)
        .uid("clean-source");
    SingleOutputStreamOperator<CleanEvent> onTime = clean
        .process(new Lateness(c.latenessMs))
        .uid("lateness")
        .name("lateness rule");
    onTime.getSideOutput(Lateness.LATE)
        .sinkTo(sink(c, c.lateTopic, new Serializers.Late(c.lateTopic)))
        .uid("late-sink")
        .name("sink: " + c.lateTopic);

    // Probe events count in windows under the probe's run id (which the freshness probe watches) and are dropped inside
    // the session aggregator (both covered by the unit tests).
    AggregateSettings settings = c.aggregateSettings();
    onTime
        .keyBy(WindowAggregator.keySelector(), WindowAggregator.keyType())
        .transform("10 s tumbling windows", TypeInformation.of(WindowRow.class), aggregate(settings,
            new WindowAggregator(settings, WindowAggregator.SessionSets.forBackend(c.stateBackend, c.changelog))))
        .uid("windows")
        .sinkTo(sink(c, c.windowsTopic, new Serializers.Windows(c.windowsTopic)))
        .uid("windows-sink")
        .name("sink: " + c.windowsTopic);
    onTime
        .keyBy(SessionAggregator.keySelector(), SessionAggregator.keyType())
        .transform("30 s gap sessions", TypeInformation.of(SessionRow.class), aggregate(settings,
            new SessionAggregator(settings)))
        .uid("sessions")
        .sinkTo(sink(c, c.sessionsTopic, new Serializers.Sessions(c.sessionsTopic)))
        .uid("sessions-sink")
        .name("sink: " + c.sessionsTopic);
  }

  /**
   * An aggregator's operator: {@link InterimAtCheckpointOperator} with interim rows at the checkpoint barrier, else
   * Flink's own (rows on emit ticks). The operator's state is the aggregator's either way, so a job can be restored
   * from a checkpoint of the other.
   */
  static <K, OUT, F extends KeyedProcessFunction<K, CleanEvent, OUT> & InterimRows<K, OUT>>
      KeyedProcessOperator<K, CleanEvent, OUT> aggregate(AggregateSettings settings, F aggregator) {
    return settings.interimAtCheckpoint ? new InterimAtCheckpointOperator<>(aggregator) : new KeyedProcessOperator<>(aggregator);
  }

  static WatermarkStrategy<CleanEvent> watermarks(WindowsJobConfig c) {
    return WatermarkStrategy.<CleanEvent>forBoundedOutOfOrderness(Duration.ofMillis(c.outOfOrdernessMs))
        .withTimestampAssigner((e, kafkaTimestamp) -> e.ingestTime)
        .withIdleness(Duration.ofMillis(c.idlenessMs));
  }

  static Configuration jobConfiguration(WindowsJobConfig c) {
    Configuration conf = c.checkpointing().configuration();
    conf.set(StateBackendOptions.STATE_BACKEND, c.stateBackend);
    if (c.stateBackend.equals("rocksdb")) {
      conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
      // The job's nine column families (two RocksDB instances: each aggregator's states and timers) share one slot's
      // managed memory: at RocksDB's 64 MB, RocksDB flushed about 34 times a second, 6 KB a time; at 8 MB about twice a
      // second, 400 KB a time (docs/FLINK.md, "State backend": RocksDB is still not a good backend for this job here).
      conf.set(RocksDBConfigurableOptions.WRITE_BUFFER_SIZE, RocksDBMemtables.SMALL_WRITE_BUFFER);
    }
    if (c.changelog) {
      // The storage is the cluster's (state.changelog.storage and its base path in the TaskManagers' config; a job's
      // own value is ignored): flink-dstl-dfs, which infra/jvm/flink-connectors puts in the cluster's lib/.
      conf.set(StateChangelogOptions.ENABLE_STATE_CHANGE_LOG, true);
    }
    return conf;
  }

  static KafkaSource<CleanEvent> source(WindowsJobConfig c) {
    // The clean job writes transactionally.
    return KafkaSources.readCommitted(c.bootstrap, c.cleanTopic, c.groupId, c.startingOffsets, c.jobName + "-source",
        new CleanEventDeserializer());
  }


  static <T> KafkaSink<T> sink(WindowsJobConfig c, String topic, KafkaRecordSerializationSchema<T> serializer) {
    // One prefix per sink (transactional ids must not collide between the three sinks of the job).
    return KafkaSinks.exactlyOnce(c.bootstrap, serializer, c.transactionalIdPrefix + "-" + topic, c.transactionTimeoutMs,
        c.sinkCompression, c.sinkLingerMs);
  }
}
