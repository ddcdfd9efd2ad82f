package dev.tokenmeter.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.analysis.ClientCpu;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.RequestTimeline;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** Histograms are mergeable: the histograms of two halves of a run add up to the whole's. */
class HistogramMergeTest {

  static List<RequestTimeline> randomRequests(long seed, int count) {
    Random random = new Random(seed);
    List<RequestTimeline> out = new ArrayList<>();
    long at = 0;
    for (int i = 0; i < count; i++) {
      at += random.nextInt(5_000_000);
      Timelines b = Timelines.request(i, Phase.MEASURED, at, 50).sent(at + random.nextInt(1000));
      if (random.nextBoolean()) {
        b.connect(at, at + 500);
      }
      long t = at + 10_000_000 + random.nextInt(200_000_000);
      int chunks = 1 + random.nextInt(30);
      for (int c = 0; c < chunks; c++) {
        b.chunk(t, "tok".substring(0, 1 + random.nextInt(3)));
        t += random.nextInt(40_000_000);
      }
      b.usage(40 + random.nextInt(20), chunks + random.nextInt(5));
      out.add(b.completedAtLastChunk(t));
    }
    return out;
  }

  static StageResult record(List<RequestTimeline> requests) {
    StageRecorder r = new StageRecorder(StageRecorderTest.PLAN, 0);
    r.windowStarted(0);
    for (RequestTimeline t : requests) {
      r.requestSent(t, t.sentNanos());
      r.requestEnded(t, RequestMetrics.of(t, null));
    }
    return r.finish(requests.get(requests.size() - 1).endNanos(), ClientCpu.UNKNOWN);
  }

  @Test
  void mergedHalvesEqualTheWhole() {
    List<RequestTimeline> all = randomRequests(3, 400);
    StageResult whole = record(all);
    StageResult first = record(all.subList(0, 200));
    StageResult second = record(all.subList(200, 400));
    for (Metric m : Metric.values()) {
      Histogram merged = first.histograms().get(m).copy();
      merged.add(second.histograms().get(m));
      assertThat(merged).as(m.wireName()).isEqualTo(whole.histograms().get(m));
    }
    assertThat(whole.histograms().get(Metric.ITL).getTotalCount()).isGreaterThan(1000);
  }
}
