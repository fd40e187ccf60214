package shop.clickstream.flink.clean;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFilterFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.TableLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Expires the Iceberg table's old snapshots from inside the clean job, so that its metadata stays bounded.
 *
 * <p>Without it every checkpoint adds a snapshot for good: each commit rewrites a metadata.json that lists them all
 * (1.8 MB after 1,784 commits, rewritten every 5 s), and the manifest list of every snapshot stays on disk. Data files
 * are never removed here: the table is append-only, so every data file is still in the current snapshot.
 *
 * <p>It runs in this job's JVM on purpose. A Hadoop-catalog commit on a local file system is safe only against
 * commits made in the same JVM (Iceberg's in-process lock around the rename of the next metadata version); the Iceberg
 * committer of the same job is the only other writer. A conflict with that committer is retried by both sides.
 *
 * <p>Used as a filter that lets no record through (chained after dedup, so it costs one call per record); only the
 * first subtask works, after a completed checkpoint at most once per interval, on its own thread, so the task thread
 * never waits for the file system. A failed expiry is logged and tried again at the next interval: it never fails the
 * job.
 */
public final class IcebergSnapshotExpiry extends RichFilterFunction<ValidRecord> implements CheckpointListener {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(IcebergSnapshotExpiry.class);

  private final TableLoader tableLoader;
  private final long maxAgeMs;
  private final int retainLast;
  private final long intervalMs;

  private transient Table table;
  private transient ExecutorService worker;
  private transient Future<?> running;
  private transient long lastStartMs;

  /** The outcome of one expiry: the table's snapshots before and after it. */
  public record Result(int snapshotsBefore, int snapshotsAfter) {}

  public IcebergSnapshotExpiry(TableLoader tableLoader, long maxAgeMs, int retainLast, long intervalMs) {
    this.tableLoader = tableLoader;
    this.maxAgeMs = maxAgeMs;
    this.retainLast = retainLast;
    this.intervalMs = intervalMs;
  }

  @Override
  public void open(OpenContext context) throws Exception {
    if (getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() != 0) return;
    tableLoader.open();
    table = tableLoader.loadTable();
    worker = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "iceberg-snapshot-expiry");
      t.setDaemon(true);
      return t;
    });
    lastStartMs = System.currentTimeMillis();
  }

  @Override
  public boolean filter(ValidRecord r) {
    return false;
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    if (table == null) return;
    long now = System.currentTimeMillis();
    if (!due(now, lastStartMs, intervalMs, running == null || running.isDone())) return;
    lastStartMs = now;
    running = worker.submit(() -> {
      try {
        Result r = expire(table, System.currentTimeMillis(), maxAgeMs, retainLast);
        if (r.snapshotsBefore() != r.snapshotsAfter()) {
          LOG.info("expired {} Iceberg snapshot(s) of {}; {} kept (older than {} ms, beyond the newest {})",
              r.snapshotsBefore() - r.snapshotsAfter(), table.name(), r.snapshotsAfter(), maxAgeMs, retainLast);
        }
      } catch (RuntimeException e) {
        LOG.warn("expiring the Iceberg snapshots of {} failed; trying again in {} ms", table.name(), intervalMs, e);
      }
    });
  }

  @Override
  public void close() throws Exception {
    if (worker != null) worker.shutdownNow();
    if (table != null) tableLoader.close();
  }

  /** Whether an expiry should start now: the interval has passed since the last start and none is still running. */
  static boolean due(long nowMs, long lastStartMs, long intervalMs, boolean idle) {
    return idle && nowMs - lastStartMs >= intervalMs;
  }

  /**
   * Expires the snapshots older than {@code maxAgeMs} before {@code nowMs}, always keeping the newest
   * {@code retainLast}, and deletes the manifest lists and manifests that only they used.
   */
  public static Result expire(Table table, long nowMs, long maxAgeMs, int retainLast) {
    table.refresh();
    int before = count(table);
    table.expireSnapshots()
        .expireOlderThan(nowMs - maxAgeMs)
        .retainLast(retainLast)
        .cleanExpiredFiles(true)
        .commit();
    table.refresh();
    return new Result(before, count(table));
  }

  private static int count(Table table) {
    int n = 0;
    for (var ignored : table.snapshots()) n++;
    return n;
  }
}
