package dev.tokenmeter.scrape;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.scrape.Reading.Histogram;
import dev.tokenmeter.scrape.Reading.Value;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A stage's server figures from scrapes: window means, deltas, interpolated percentiles, the TTFT split. */
class ServerFiguresTest {
  private static final long S = 1_000_000_000L;
  private static final double[] QUEUE_BOUNDS = {0.3, 0.5, 0.8, 1.0, Double.POSITIVE_INFINITY};

  /** A vLLM scrape at {@code t} s: {@code waiting}, preemptions, queue and prefill histograms. */
  private static Reading vllm(long t, double waiting, double preemptions, double[] queue, double[] prefill) {
    return new Reading(t * S,
        Map.of(Value.WAITING, waiting, Value.RUNNING, 2.0, Value.PREEMPTIONS, preemptions,
            Value.PREFIX_CACHE_QUERIES, 100.0 * t, Value.PREFIX_CACHE_HITS, 25.0 * t),
        Map.of(Histogram.QUEUE_TIME, new Buckets(QUEUE_BOUNDS, queue, Double.NaN, queue[queue.length - 1]),
            Histogram.PREFILL_TIME, new Buckets(QUEUE_BOUNDS, prefill, 0.1 * prefill[4], prefill[4])),
        Map.of());
  }

  private static List<Reading> run() {
    List<Reading> rs = new ArrayList<>();
    double[] none = {0, 0, 0, 0, 0};
    rs.add(vllm(0, 0, 5, none, none)); // before the stage
    rs.add(vllm(1, 4, 5, new double[] {1, 1, 1, 1, 1}, new double[] {1, 1, 1, 1, 1})); // warm-up: baseline
    rs.add(vllm(2, 6, 6, new double[] {1, 1, 3, 5, 5}, new double[] {5, 5, 5, 5, 5}));
    rs.add(vllm(3, 8, 7, new double[] {1, 1, 5, 9, 9}, new double[] {9, 9, 9, 9, 9})); // first after the window
    rs.add(vllm(9, 0, 7, new double[] {1, 1, 5, 9, 9}, new double[] {9, 9, 9, 9, 9})); // after the stage
    return rs;
  }

  @Test
  void gaugesAverageTheWindowAndTotalsAndHistogramsSpanIt() {
    ServerFigures.Span span = new ServerFigures.Span(S / 2, S, 5 * S / 2, 4 * S);
    ServerStage s = ServerFigures.of(ServerKind.VLLM, run(), span, 1000);
    assertThat(s.server()).isEqualTo(ServerKind.VLLM);
    assertThat(s.windowScrapes()).isEqualTo(2); // at 1 s and 2 s
    assertThat(s.gauges().get(Value.WAITING)).isEqualTo(new ServerStage.Gauge(5, 6));
    assertThat(s.gauges()).doesNotContainKey(Value.KV_CACHE_USAGE);
    assertThat(s.deltas()).containsEntry(Value.PREEMPTIONS, 2.0); // 7 at 3 s − 5 at 1 s
    assertThat(s.prefixCacheHitRate()).isEqualTo(0.25);
    ServerStage.Latency q = s.latencies().get(Histogram.QUEUE_TIME);
    // 8 requests over the window: 4 in (0.5, 0.8], 4 in (0.8, 1.0]; the median is rank 4: 0.8 s
    assertThat(q.count()).isEqualTo(8);
    assertThat(q.p50Ms()).isCloseTo(800, within(1e-9));
    assertThat(q.p90Ms()).isCloseTo(800 + 200 * (7.2 - 4) / 4, within(1e-9));
    assertThat(q.meanMs()).isNaN(); // no sum sent
    ServerStage.Latency p = s.latencies().get(Histogram.PREFILL_TIME);
    assertThat(p.p50Ms()).isCloseTo(150, within(1e-9)); // all 8 in [0, 0.3]: interpolated to the middle
    assertThat(p.meanMs()).isCloseTo(100, within(1e-9));
    ServerStage.Decomposition d = s.decomposition();
    assertThat(d.clientTtftP50Ms()).isEqualTo(1000);
    assertThat(d.queueMs()).isCloseTo(800, within(1e-9));
    assertThat(d.queueSource()).isEqualTo("vLLM queue time");
    // prefill: the exact mean (100 ms) lies in the median's bucket, [0, 300 ms], and stands in for it;
    // queue: no sum sent, so the interpolated median
    assertThat(p.meanInMedianBucket()).isTrue();
    assertThat(p.p50LowMs()).isZero();
    assertThat(q.meanInMedianBucket()).isFalse();
    assertThat(q.p50LowMs()).isCloseTo(500, within(1e-9));
    assertThat(q.p50HighMs()).isCloseTo(800, within(1e-9));
    assertThat(d.means()).containsExactly("prefill");
    assertThat(d.prefillMs()).isCloseTo(100, within(1e-9));
    assertThat(d.restMs()).isCloseTo(100, within(1e-9));
    ServerStage.Series series = s.series();
    assertThat(series.offsetSeconds()).containsExactly(0.5, 1.5, 2.5);
    assertThat(series.waiting()).containsExactly(4, 6, 8);
    assertThat(series.kvCacheUsage()[0]).isNaN();
    assertThat(series.raw()).isEmpty();
  }

  @Test
  void withoutAScrapeOnBothSidesOfTheWindowThereAreNoTotals() {
    List<Reading> rs = run().subList(1, 3); // 1 s and 2 s only
    ServerStage s = ServerFigures.of(ServerKind.VLLM, rs, new ServerFigures.Span(0, S / 2, 3 * S, 3 * S), 900);
    assertThat(s.windowScrapes()).isEqualTo(2);
    assertThat(s.deltas()).isEmpty();
    assertThat(s.latencies()).isEmpty();
    assertThat(s.decomposition()).isNull();
    assertThat(s.prefixCacheHitRate()).isNaN();
  }

  @Test
  void aServerThatRestartedCountsFromZero() {
    Reading before = new Reading(0, Map.of(Value.PREEMPTIONS, 50.0), Map.of(Histogram.TTFT,
        new Buckets(new double[] {1, Double.POSITIVE_INFINITY}, new double[] {40, 50}, 20, 50)), Map.of());
    Reading after = new Reading(2 * S, Map.of(Value.PREEMPTIONS, 3.0), Map.of(Histogram.TTFT,
        new Buckets(new double[] {1, Double.POSITIVE_INFINITY}, new double[] {4, 6}, 3, 6)), Map.of());
    ServerStage s = ServerFigures.of(ServerKind.VLLM, List.of(before, after), new ServerFigures.Span(0, 0, 2 * S, 2 * S),
        Double.NaN);
    assertThat(s.deltas()).containsEntry(Value.PREEMPTIONS, 3.0);
    assertThat(s.latencies().get(Histogram.TTFT).count()).isEqualTo(6);
    assertThat(s.latencies().get(Histogram.TTFT).meanMs()).isCloseTo(500, within(1e-9));
    assertThat(s.latencies().get(Histogram.TTFT).p99Ms()).as("in the +Inf bucket: the highest bound").isEqualTo(1000);
    assertThat(s.decomposition()).isNull();
  }

  @Test
  void tritonsQueueTimeIsAMeanFromItsTotals() {
    Reading before = new Reading(0, Map.of(Value.QUEUE_MICROS_TOTAL, 1e6, Value.REQUESTS_FINISHED, 10.0), Map.of(),
        Map.of());
    Reading after = new Reading(2 * S, Map.of(Value.QUEUE_MICROS_TOTAL, 3e6, Value.REQUESTS_FINISHED, 20.0), Map.of(),
        Map.of());
    ServerStage s = ServerFigures.of(ServerKind.TRITON, List.of(before, after),
        new ServerFigures.Span(0, 0, 2 * S, 2 * S), 400);
    ServerStage.Latency q = s.latencies().get(Histogram.QUEUE_TIME);
    assertThat(q.count()).isEqualTo(10);
    assertThat(q.meanMs()).isEqualTo(200); // 2 s of queueing over 10 requests
    assertThat(q.p50Ms()).isNaN();
    assertThat(s.decomposition().queueSource()).isEqualTo("Triton mean queue time");
    assertThat(s.decomposition().prefillMs()).isNaN();
    assertThat(s.decomposition().restMs()).isEqualTo(200);
    assertThat(s.decomposition().means()).isEmpty();
    assertThat(q.p50LowMs()).isNaN();
  }

  @Test
  void anUnknownServersRawSeriesAreAlignedPerScrape() {
    Reading a = new Reading(0, Map.of(), Map.of(), Map.of("x", 1.0));
    Reading b = new Reading(S, Map.of(), Map.of(), Map.of("x", 2.0, "y", 5.0));
    ServerStage s = ServerFigures.of(ServerKind.UNKNOWN, List.of(a, b), new ServerFigures.Span(0, 0, S, S), 10);
    assertThat(s.series().raw().get("x")).containsExactly(1, 2);
    assertThat(s.series().raw().get("y")[0]).isNaN();
    assertThat(s.series().raw().get("y")[1]).isEqualTo(5);
    assertThat(s.gauges()).isEmpty();
    assertThat(ServerStage.Series.empty().offsetSeconds()).isEmpty();
  }

  @Test
  void bucketsSubtractAndInterpolateAsPrometheusDoes() {
    double[] bounds = {0.1, 0.2, Double.POSITIVE_INFINITY};
    Buckets later = new Buckets(bounds, new double[] {10, 30, 40}, 8, 40);
    Buckets earlier = new Buckets(bounds, new double[] {10, 10, 10}, 1, 10);
    Buckets d = later.minus(earlier);
    assertThat(d.cumulative()).containsExactly(0, 20, 30);
    assertThat(d.count()).isEqualTo(30);
    assertThat(d.mean()).isCloseTo(7.0 / 30, within(1e-12));
    assertThat(d.quantile(0.5)).isCloseTo(0.1 + 0.1 * 15 / 20, within(1e-12));
    assertThat(d.quantile(0.9)).isEqualTo(0.2); // the +Inf bucket
    assertThat(later.minus(null)).isSameAs(later);
    assertThat(later.minus(new Buckets(new double[] {1, Double.POSITIVE_INFINITY}, new double[] {1, 1}, 0, 1)))
        .as("other bounds").isSameAs(later);
    assertThat(earlier.minus(new Buckets(bounds, new double[] {11, 11, 11}, 0, 9))).as("a bucket went down")
        .isSameAs(earlier);
    assertThat(new Buckets(bounds, new double[] {0, 0, 0}, 0, 0).quantile(0.5)).isNaN();
    assertThat(new Buckets(new double[] {Double.POSITIVE_INFINITY}, new double[] {3}, 1, 3).quantile(0.5)).isNaN();
    assertThat(new Buckets(new double[] {1}, new double[] {0}, 0, 0).mean()).isNaN();
    assertThat(d).isEqualTo(new Buckets(bounds, new double[] {0, 20, 30}, 7, 30)).hasSameHashCodeAs(
        new Buckets(bounds, new double[] {0, 20, 30}, 7, 30));
    assertThat(d.toString()).contains("count 30");
    assertThat(d.bucketOf(0.5)).containsExactly(0.1, 0.2);
    assertThat(d.bucketOf(0.9)).containsExactly(Double.NaN, Double.NaN); // the +Inf bucket
    assertThat(later.bucketOf(0.1)).containsExactly(0, 0.1);
    assertThat(new Buckets(bounds, new double[] {0, 0, 0}, 0, 0).bucketOf(0.5)).containsExactly(Double.NaN, Double.NaN);
  }
}
