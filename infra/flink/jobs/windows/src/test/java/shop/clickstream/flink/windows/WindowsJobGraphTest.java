package shop.clickstream.flink.windows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.typeutils.runtime.TupleSerializerBase;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.junit.jupiter.api.Test;
import shop.clickstream.flink.support.BulkStringSerializer;

/** The job's dataflow as built for submission (no cluster, no Kafka): what travels between tasks and how. */
class WindowsJobGraphTest {
  static StreamGraph graph() {
    WindowsJobConfig c = WindowsJobConfig.parse(new String[] {});
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(WindowsJob.jobConfiguration(c));
    WindowsJob.pipeline(env, c);
    return env.getStreamGraph();
  }

  @Test
  void eventsCrossTheNetworkThroughTheHandWrittenSerializerAndObjectsAreReused() {
    StreamGraph g = graph();
    List<String> aggregators = new ArrayList<>();
    for (StreamNode n : g.getStreamNodes()) {
      if (!n.getOperatorName().equals("10 s tumbling windows") && !n.getOperatorName().equals("30 s gap sessions")) continue;
      TypeSerializer<?>[] in = n.getTypeSerializersIn();
      assertEquals(1, in.length, n.getOperatorName());
      assertTrue(in[0] instanceof CleanEventSerializer, n.getOperatorName() + " reads " + in[0]);
      aggregators.add(n.getOperatorName());
    }
    assertEquals(List.of("10 s tumbling windows", "30 s gap sessions"), aggregators.stream().sorted().toList());
    assertTrue(g.getExecutionConfig().isObjectReuseEnabled());
  }

  @Test
  void bothAggregatorsKeyByStringsWrittenInOneCall() {
    List<String> keys = new ArrayList<>();
    for (StreamNode n : graph().getStreamNodes()) {
      TypeSerializer<?> key = n.getStateKeySerializer();
      if (key == null) continue;
      List<TypeSerializer<?>> fields =
          key instanceof TupleSerializerBase<?> t ? List.of(t.getFieldSerializers()) : List.of(key);
      for (TypeSerializer<?> f : fields) assertTrue(f instanceof BulkStringSerializer, n.getOperatorName() + " keys by " + f);
      keys.add(n.getOperatorName() + ": " + fields.size());
    }
    assertEquals(List.of("10 s tumbling windows: 1", "30 s gap sessions: 2"), keys.stream().sorted().toList());
  }
}
