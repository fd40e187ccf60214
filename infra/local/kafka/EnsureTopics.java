// Creates the stack's topics if missing (one JVM for all of them) and fails if an existing one has the wrong shape.
// Run as a single-file program: java -cp '.cache/kafka/*' EnsureTopics.java <bootstrap> <partitions> <rf> <topic spec>...
// With -Delect.preferred.leaders=true it then elects every partition's preferred leader (stack.sh up, after starting
// the whole cluster).
// A topic spec is "name [key=value ...]" (a line of topics.txt): the configs are set at creation and, on an
// existing topic whose value differs, altered in place (e.g. clickstream.raw message.timestamp.type=LogAppendTime).
import java.util.*;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ElectionNotNeededException;
import org.apache.kafka.common.errors.TopicExistsException;

public class EnsureTopics {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    int partitions = Integer.parseInt(args[1]);
    short rf = Short.parseShort(args[2]);
    Map<String, Map<String, String>> topics = new LinkedHashMap<>();
    for (String spec : Arrays.asList(args).subList(3, args.length)) {
      String[] words = spec.trim().split("\\s+");
      Map<String, String> configs = new LinkedHashMap<>();
      for (int i = 1; i < words.length; i++) {
        int eq = words[i].indexOf('=');
        if (eq <= 0) throw new IllegalArgumentException("bad topic config '" + words[i] + "' in '" + spec + "': expected key=value");
        configs.put(words[i].substring(0, eq), words[i].substring(eq + 1));
      }
      topics.put(words[0], configs);
    }
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000");
    try (Admin admin = Admin.create(p)) {
      waitForBrokers(admin, rf);
      Set<String> existing = admin.listTopics().names().get();
      for (Map.Entry<String, Map<String, String>> topic : topics.entrySet()) {
        String t = topic.getKey();
        Map<String, String> configs = topic.getValue();
        if (existing.contains(t)) { check(admin, t, partitions, rf); alter(admin, t, configs); continue; }
        try {
          admin.createTopics(List.of(new NewTopic(t, partitions, rf).configs(configs))).all().get();
          System.out.println("created " + t + " partitions=" + partitions + " rf=" + rf + (configs.isEmpty() ? "" : " " + configs));
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) throw e;
          check(admin, t, partitions, rf);
          alter(admin, t, configs);
        }
      }
      if (Boolean.getBoolean("elect.preferred.leaders")) electPreferredLeaders(admin);
    }
  }

  // A stopped cluster restarts with every partition led by the node that stopped last, and the controller moves them
  // back only at its next imbalance check (leader.imbalance.check.interval.seconds): one node would do all the
  // leaders' work for the first minutes of a run (docs/KAFKA.md, "Leaders"). So after a start of the whole cluster,
  // before any app runs, elect each partition's preferred leader. A node restarted alone is left to the controller's
  // check: an election under running apps would move their group coordinators (docs/GATEKEEPER.md, "Open problem").
  // A partition whose preferred replica is not in sync yet is asked again for up to 30 s, then left to the controller.
  // Leaders are a matter of cost, not of correctness: a failed election is reported, never fatal.
  static void electPreferredLeaders(Admin admin) throws Exception {
    long deadline = System.currentTimeMillis() + 30_000;
    int moved = 0;
    while (true) {
      String notYet;
      try {
        Map<TopicPartition, Optional<Throwable>> result = admin.electLeaders(ElectionType.PREFERRED, null).partitions().get();
        Map<TopicPartition, Throwable> pending = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, Optional<Throwable>> e : result.entrySet()) {
          if (e.getValue().isEmpty()) moved++;
          else if (!(e.getValue().get() instanceof ElectionNotNeededException)) pending.put(e.getKey(), e.getValue().get());
        }
        if (pending.isEmpty()) {
          System.out.println("leaders: " + moved + " partitions moved to their preferred leader");
          return;
        }
        Map.Entry<TopicPartition, Throwable> first = pending.entrySet().iterator().next();
        notYet = pending.size() + " not yet (" + first.getKey() + ": " + first.getValue().getMessage() + ")";
      } catch (ExecutionException e) {
        notYet = "the election failed (" + e.getCause() + ")";
      }
      if (System.currentTimeMillis() > deadline) {
        System.out.println("leaders: " + moved + " partitions moved to their preferred leader, " + notYet
            + "; the controller moves them later");
        return;
      }
      Thread.sleep(1000);
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

  // Sets the configs of topics.txt on a topic created before they were listed (the value is read back, so an
  // unchanged topic is not altered).
  static void alter(Admin admin, String t, Map<String, String> configs) throws Exception {
    if (configs.isEmpty()) return;
    ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, t);
    Config current = admin.describeConfigs(List.of(res)).all().get().get(res);
    List<AlterConfigOp> ops = new ArrayList<>();
    for (Map.Entry<String, String> c : configs.entrySet()) {
      ConfigEntry e = current.get(c.getKey());
      if (e == null || !c.getValue().equals(e.value()))
        ops.add(new AlterConfigOp(new ConfigEntry(c.getKey(), c.getValue()), AlterConfigOp.OpType.SET));
    }
    if (ops.isEmpty()) return;
    admin.incrementalAlterConfigs(Map.of(res, ops)).all().get();
    System.out.println("altered " + t + " " + configs);
  }
}
