package dev.tokenmeter.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * Merges the parts' per-second series of one stage: second {@code s} of each part (counted from
 * its own stage start) adds up. Counts and mean in flight add (a sum of time-weighted means over
 * the same second is the time-weighted mean of the sum); mean TTFT is weighted by the first tokens
 * of each part. The series is as long as the longest part's; phases are part 0's. Stateless.
 */
final class TimeSeriesMerger {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String[] COUNTS = {"output_tokens", "completed", "failed", "first_tokens"};

  private TimeSeriesMerger() {}

  static ObjectNode merge(List<JsonNode> stages) {
    List<JsonNode> series = stages.stream().map(s -> s.get("time_series")).toList();
    JsonNode first = series.get(0);
    int n = series.stream().mapToInt(s -> s.get("output_tokens").size()).max().orElse(0);
    ObjectNode out = MAPPER.createObjectNode();
    out.set("interval_s", first.get("interval_s").deepCopy());
    StageMerger.number(out, "stage_length_s", series.stream()
        .mapToDouble(s -> s.get("stage_length_s").asDouble()).max().orElse(0));
    out.set("phases", first.get("phases").deepCopy());
    for (String field : COUNTS) {
      ArrayNode a = out.putArray(field);
      for (int i = 0; i < n; i++) {
        long sum = 0;
        for (JsonNode s : series) {
          sum += s.get(field).path(i).asLong();
        }
        a.add(sum);
      }
    }
    ArrayNode inFlight = out.putArray("mean_in_flight");
    ArrayNode ttft = out.putArray("mean_ttft_ms");
    for (int i = 0; i < n; i++) {
      double flight = 0;
      double ttftSum = 0;
      long firsts = 0;
      for (JsonNode s : series) {
        flight += s.get("mean_in_flight").path(i).asDouble(0);
        long f = s.get("first_tokens").path(i).asLong();
        if (f > 0) {
          ttftSum += f * s.get("mean_ttft_ms").path(i).asDouble();
          firsts += f;
        }
      }
      inFlight.add(flight);
      if (firsts == 0) {
        ttft.addNull();
      } else {
        ttft.add(ttftSum / firsts);
      }
    }
    return out;
  }
}
