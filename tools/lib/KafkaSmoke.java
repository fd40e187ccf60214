// Smoke checks against the local Kafka cluster, one JVM per call (run as a single-file Java program).
// produce-consume <bootstrap> <topic> <n>: RF-3 topic, n records with acks=all, read back read_committed, delete.
// count <bootstrap> <topic> <n>: the topic holds exactly n records (committed), then delete it.
// create <bootstrap> <topic> <n>: an RF-3 topic of n partitions, for a writer that does not create its own (the
// brokers never auto-create one).
import java.time.Duration;
import java.util.*;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.*;

public class KafkaSmoke {
  public static void main(String[] args) throws Exception {
    try {
      run(args);
    } catch (Exception e) {
      System.err.println("FAIL " + e);
      System.exit(1);
    }
  }

  static void run(String[] args) throws Exception {
    String mode = args[0], bootstrap = args[1], topic = args[2];
    int n = Integer.parseInt(args[3]);
    Properties ap = new Properties();
    ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(ap)) {
      if (mode.equals("create")) {
        admin.createTopics(List.of(new NewTopic(topic, n, (short) 3))).all().get();
        System.out.println("ok create " + topic + " partitions=" + n);
        return;
      }
      try {
        if (mode.equals("produce-consume")) {
          admin.createTopics(List.of(new NewTopic(topic, 3, (short) 3))).all().get();
          produce(bootstrap, topic, n);
        }
        Set<String> seen = consume(bootstrap, topic, n);
        if (seen.size() != n) fail("read " + seen.size() + " distinct records from " + topic + ", expected " + n);
        System.out.println("ok " + mode + " " + topic + " records=" + n);
      } finally {
        admin.deleteTopics(List.of(topic)).all().get();
      }
    }
  }

  static void produce(String bootstrap, String topic, int n) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    try (Producer<String, String> pr = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      List<java.util.concurrent.Future<RecordMetadata>> acks = new ArrayList<>();
      for (int i = 0; i < n; i++) acks.add(pr.send(new ProducerRecord<>(topic, "k" + i, Integer.toString(i))));
      for (var a : acks) a.get();
    }
  }

  // Reads until n records or 30 s (then one more poll, so extras are seen); returns the distinct values.
  static Set<String> consume(String bootstrap, String topic, int n) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    Set<String> seen = new HashSet<>();
    int records = 0;
    try (Consumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
      List<TopicPartition> tps = new ArrayList<>();
      c.partitionsFor(topic, Duration.ofSeconds(20)).forEach(i -> tps.add(new TopicPartition(topic, i.partition())));
      c.assign(tps);
      c.seekToBeginning(tps);
      long deadline = System.currentTimeMillis() + 30_000;
      while (records < n && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(500))) {
          records++;
          seen.add(String.valueOf(r.value()));
        }
      }
      // One more poll: a record beyond n would be a duplicate or a stray write.
      records += c.poll(Duration.ofSeconds(1)).count();
    }
    if (records != n) fail("read " + records + " records from " + topic + ", expected exactly " + n);
    return seen;
  }

  static void fail(String msg) {
    throw new IllegalStateException(msg);
  }
}
