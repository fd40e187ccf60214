package shop.clickstream.flink.clean;

import java.io.IOException;
import java.time.Duration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.maintenance.api.RewriteDataFiles;
import org.apache.iceberg.flink.maintenance.api.TableMaintenance;

/**
 * Small-file compaction of the clean table, with Iceberg's own Flink table maintenance in this job. The sink writes a
 * Parquet file per subtask at each Iceberg commit (every 5 s), a few hundred KB each: thousands of files an hour, which
 * every reader of the table plans and opens. After every {@code --iceberg-compaction-commits} commits, Iceberg's
 * {@link RewriteDataFiles} bin-packs the small files into files of about {@code --iceberg-compaction-target-mb}, at
 * most {@code --iceberg-compaction-max-mb} of them per run, and commits a replace snapshot: the rows are the same, in
 * fewer files. The replaced files leave the table when their last snapshot expires ({@link IcebergSnapshotExpiry}).
 *
 * <p>The maintenance has its own monitor source, which reads the table's new snapshots once per
 * {@code --iceberg-compaction-poll-s}; its runs never overlap (Iceberg's coordinator lock, no external lock service).
 * Everything runs at parallelism 1 in the job's slots. The table is append-only, so a rewrite never conflicts with
 * the sink's appends.
 */
final class IcebergCompaction {
  private static final long MB = 1024L * 1024;

  private IcebergCompaction() {}

  static void append(StreamExecutionEnvironment env, TableLoader table, CleanJobConfig c) throws IOException {
    TableMaintenance.forTable(env, table)
        .uidSuffix("iceberg-compaction")
        .rateLimit(Duration.ofSeconds(c.icebergCompactionPollS))
        .parallelism(1)
        .add(RewriteDataFiles.builder()
            // Off (0): a count no table reaches, so that the operators stay in the graph (CleanJob).
            .scheduleOnCommitCount(c.icebergCompactionCommits > 0 ? c.icebergCompactionCommits : Integer.MAX_VALUE)
            .targetFileSizeBytes(c.icebergCompactionTargetMb * MB)
            // Iceberg's planner skips a file group bigger than maxRewriteBytes, and a partition's small files (or an
            // unpartitioned table's) make one group up to maxFileGroupSizeBytes (100 GB by default): bounded alike,
            // groups fit.
            .maxFileGroupSizeBytes(c.icebergCompactionMaxMb * MB)
            .maxRewriteBytes(c.icebergCompactionMaxMb * MB))
        .append();
  }
}
