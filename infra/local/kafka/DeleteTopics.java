// Deletes the named topics in one call (one JVM for all of them) and prints "deleted <topic>" for each; a topic that
// is already gone counts as deleted. Used by `stack.sh prune-topics`.
// Run as a single-file program: java -cp '.cache/kafka/*' DeleteTopics.java <bootstrap> <topic>...
import java.util.*;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

public class DeleteTopics {
  public static void main(String[] args) throws Exception {
    if (args.length < 2) throw new IllegalArgumentException("usage: DeleteTopics <bootstrap> <topic>...");
    List<String> topics = Arrays.asList(args).subList(1, args.length);
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000");
    List<String> failed = new ArrayList<>();
    try (Admin admin = Admin.create(p)) {
      Map<String, KafkaFuture<Void>> results = admin.deleteTopics(topics).topicNameValues();
      for (String t : topics) {
        try {
          results.get(t).get();
          System.out.println("deleted " + t);
        } catch (ExecutionException e) {
          if (e.getCause() instanceof UnknownTopicOrPartitionException) {
            System.out.println("deleted " + t + " (already gone)");
          } else {
            System.out.println("failed " + t + ": " + e.getCause());
            failed.add(t);
          }
        }
      }
    }
    if (!failed.isEmpty()) {
      System.err.println("could not delete " + failed.size() + " topic(s): " + String.join(", ", failed));
      System.exit(1);
    }
  }
}
