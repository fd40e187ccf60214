// Creates the stack's topics if missing (one JVM for all of them) and fails if an existing one has the wrong shape.
// Run as a single-file program: java -cp '.cache/kafka/*' EnsureTopics.java <bootstrap> <partitions> <rf> <topic>...
import java.util.*;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.common.errors.TopicExistsException;

public class EnsureTopics {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    int partitions = Integer.parseInt(args[1]);
    short rf = Short.parseShort(args[2]);
    List<String> topics = Arrays.asList(args).subList(3, args.length);
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000");
    try (Admin admin = Admin.create(p)) {
      waitForBrokers(admin, rf);
      Set<String> existing = admin.listTopics().names().get();
      for (String t : topics) {
        if (existing.contains(t)) { check(admin, t, partitions, rf); continue; }
        try {
          admin.createTopics(List.of(new NewTopic(t, partitions, rf))).all().get();
          System.out.println("created " + t + " partitions=" + partitions + " rf=" + rf);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) throw e;
          check(admin, t, partitions, rf);
        }
      }
    }
  }

  // A topic with fewer replicas than brokers needed would be created under-replicated, so wait for them.
  static void waitForBrokers(Admin admin, int wanted) throws Exception {
    long deadline = System.currentTimeMillis() + 60_000;
    while (true) {
      int n = admin.describeCluster().nodes().get().size();
      if (n >= wanted) return;
      if (System.currentTimeMillis() > deadline) throw new IllegalStateException("only " + n + " brokers registered, need " + wanted);
      Thread.sleep(500);
    }
  }

  static void check(Admin admin, String t, int partitions, short rf) throws Exception {
    TopicDescription d = admin.describeTopics(List.of(t)).allTopicNames().get().get(t);
    int gotRf = d.partitions().get(0).replicas().size();
    if (gotRf != rf) throw new IllegalStateException("topic " + t + " has replication factor " + gotRf + ", expected " + rf);
    if (d.partitions().size() != partitions) {
      System.out.println("exists " + t + " partitions=" + d.partitions().size() + " (PARTITIONS=" + partitions + " applies to new topics only)");
    } else {
      System.out.println("exists " + t);
    }
  }
}
