package shop.clickstream.flink.windows;

/** Every window operator test again, with the distinct sessions in a MapState (the form for RocksDB and the changelog). */
class WindowAggregatorMapFormTest extends WindowAggregatorTest {
  @Override
  WindowAggregator.SessionSets form() {
    return WindowAggregator.SessionSets.MAP;
  }
}
