package shop.clickstream.flink.windows;

import java.nio.charset.StandardCharsets;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/** Builds test events; the StreamRecord timestamp is the ingest time, as the job's watermark strategy assigns it. */
final class Events {
  static final String RUN = "run-test";

  private Events() {}

  static CleanEvent event(String run, String session, String type, long eventTime, long ingestTime, Long amount) {
    CleanEvent e = new CleanEvent();
    e.runId = run;
    e.sessionId = session;
    e.eventType = type;
    e.eventTime = eventTime;
    e.ingestTime = ingestTime;
    e.amountCents = amount;
    e.eventId = run + "-" + session + "-" + eventTime + "-" + type;
    e.key = session.getBytes(StandardCharsets.UTF_8);
    e.value = e.eventId.getBytes(StandardCharsets.UTF_8);
    e.headerKeys = new String[] {"cs-seq"};
    e.headerValues = new byte[][] {"1".getBytes(StandardCharsets.UTF_8)};
    e.timestamp = ingestTime;
    return e;
  }

  static CleanEvent view(String session, long eventTime) {
    return event(RUN, session, "page_view", eventTime, eventTime + 100, null);
  }

  static CleanEvent pay(String session, long eventTime, long amount) {
    return event(RUN, session, "payment_succeeded", eventTime, eventTime + 100, amount);
  }

  static StreamRecord<CleanEvent> rec(CleanEvent e) {
    return new StreamRecord<>(e, e.ingestTime);
  }
}
