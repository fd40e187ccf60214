package shop.clickstream.flink.clean;

import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.types.Types;

/**
 * The Iceberg table of clean events: its schema (all event fields, times as epoch-ms longs, plus the events.valid
 * position), creation in a Hadoop catalog, and the mapping from a {@link ValidRecord} to a row.
 *
 * <p>Kept plain on purpose, because the reconciler reads it without an Iceberg library: format version 2, append-only
 * (no delete files), Parquet with a configurable codec, partitioned by run_id alone ({@link #SPEC}).
 */
public final class IcebergEvents {
  public static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "event_id", Types.StringType.get()),
      Types.NestedField.required(2, "seq", Types.LongType.get()),
      Types.NestedField.required(3, "run_id", Types.StringType.get()),
      Types.NestedField.required(4, "event_type", Types.StringType.get()),
      Types.NestedField.required(5, "event_time", Types.LongType.get()),
      Types.NestedField.required(6, "session_id", Types.StringType.get()),
      Types.NestedField.optional(7, "user_id", Types.StringType.get()),
      Types.NestedField.optional(8, "page", Types.StringType.get()),
      Types.NestedField.optional(9, "product_id", Types.StringType.get()),
      Types.NestedField.optional(10, "quantity", Types.IntegerType.get()),
      Types.NestedField.optional(11, "amount_cents", Types.LongType.get()),
      Types.NestedField.optional(12, "currency", Types.StringType.get()),
      Types.NestedField.optional(13, "device", Types.StringType.get()),
      Types.NestedField.optional(14, "ingest_time", Types.LongType.get()),
      Types.NestedField.required(15, "kafka_partition", Types.IntegerType.get()),
      Types.NestedField.required(16, "kafka_offset", Types.LongType.get()),
      Types.NestedField.required(17, "kafka_timestamp", Types.LongType.get()));

  /**
   * Identity on run_id: each data file holds one run, so its run_id bounds are exact and a reader of one run (the
   * reconciler, or any engine's {@code WHERE run_id = ...}) opens that run's files only. Unpartitioned, a file held every
   * run written in its commit interval (the probe's among them), and bounds spanning several runs' ids made readers
   * open files of other runs. Iceberg data files keep the column, so a reader needs no partition logic.
   */
  public static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA).identity("run_id").build();

  private IcebergEvents() {}

  public static CatalogLoader catalogLoader(String warehouse) {
    return CatalogLoader.hadoop("clickstream", new Configuration(), Map.of("warehouse", warehouse));
  }

  /**
   * run_id's column statistics in full, not Iceberg's default truncate(16): the table holds every run, and a reader
   * filtering on one run (the reconciler, or any engine's {@code WHERE run_id = ...}) skips the files whose bounds
   * exclude it. Truncated to 16 characters, run ids of one kind started on the same day share their bounds
   * ("profile-1000-202"), so few files could be skipped. Applies to files written after it is set.
   */
  static final String RUN_ID_METRICS = TableProperties.METRICS_MODE_COLUMN_CONF_PREFIX + "run_id";

  /**
   * Creates the namespace and table if absent (idempotent); an existing table is used as it is, except that its
   * snapshot retention properties are set to the job's (what {@link IcebergSnapshotExpiry} applies), so that another
   * engine's expiry of this table keeps the same snapshots, run_id's statistics to full ({@link #RUN_ID_METRICS}), and
   * the metadata versions kept to what the job's open tables need ({@link CleanJobConfig#metadataVersionsKept}); and a
   * table created unpartitioned gets {@link #SPEC} (partition evolution: its existing files stay as they are, and files
   * written from then on are partitioned).
   */
  public static Table ensureTable(CatalogLoader loader, TableIdentifier id, String parquetCodec, long snapshotMaxAgeMs,
      int snapshotsRetained, int metadataVersionsKept) {
    Catalog catalog = loader.loadCatalog();
    if (catalog instanceof SupportsNamespaces ns && !ns.namespaceExists(id.namespace())) {
      try {
        ns.createNamespace(id.namespace());
      } catch (org.apache.iceberg.exceptions.AlreadyExistsException raced) {
        // Another job created it first: fine.
      }
    }
    Map<String, String> enforced = Map.of(
        TableProperties.MAX_SNAPSHOT_AGE_MS, Long.toString(snapshotMaxAgeMs),
        TableProperties.MIN_SNAPSHOTS_TO_KEEP, Integer.toString(snapshotsRetained),
        RUN_ID_METRICS, "full",
        TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, Integer.toString(metadataVersionsKept));
    if (catalog.tableExists(id)) {
      Table existing = catalog.loadTable(id);
      if (!existing.properties().entrySet().containsAll(enforced.entrySet())) {
        var update = existing.updateProperties();
        enforced.forEach(update::set);
        update.commit();
      }
      int runId = SCHEMA.findField("run_id").fieldId();
      if (existing.spec().fields().stream().noneMatch(f -> f.sourceId() == runId && f.transform().isIdentity())) {
        existing.updateSpec().addField("run_id").commit();
      }
      return existing;
    }
    Map<String, String> props = new HashMap<>(enforced);
    props.putAll(Map.of(
        TableProperties.FORMAT_VERSION, "2",
        TableProperties.DEFAULT_FILE_FORMAT, "parquet",
        TableProperties.PARQUET_COMPRESSION, parquetCodec,
        // Keep the metadata directory small: old metadata JSON files beyond those kept are removed after each commit.
        TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true"));
    return catalog.createTable(id, SCHEMA, SPEC, props);
  }

  public static TableIdentifier identifier(String namespace, String table) {
    return TableIdentifier.of(Namespace.of(namespace), table);
  }

  /** Maps a clean record to a row in the column order of {@link #SCHEMA}. */
  public static final class ToRow implements MapFunction<ValidRecord, RowData> {
    private static final long serialVersionUID = 1L;

    @Override
    public RowData map(ValidRecord r) {
      return GenericRowData.of(
          s(r.eventId), r.seq, s(r.runId), s(r.eventType), r.eventTime, s(r.sessionId), s(r.userId), s(r.page),
          s(r.productId), r.quantity, r.amountCents, s(r.currency), s(r.device), r.ingestTime,
          r.partition, r.offset, r.timestamp);
    }

    private static StringData s(String v) {
      return v == null ? null : StringData.fromString(v);
    }
  }
}
