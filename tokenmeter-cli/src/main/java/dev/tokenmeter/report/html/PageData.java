package dev.tokenmeter.report.html;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.analysis.LatencyOrigin;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.Repeats;
import dev.tokenmeter.report.Cdf;
import dev.tokenmeter.report.SavedSummary;
import dev.tokenmeter.report.StageDetail;
import dev.tokenmeter.scrape.ServerStage;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * The data report.html draws its charts from: one JSON object, embedded in the page as {@code
 * <script type="application/json" id="tm-data">}. Numbers are copied from summary.json (so a chart
 * shows exactly the file's values) or derived from its histograms (CDFs, length distributions);
 * NaN becomes null. Pure function of a {@link SavedSummary}.
 *
 * <p>Layout: {@code simulated, loadAxis, fluidTps, curve[]} (stages in load order: label, load,
 * aggregate TPS, per-user p50/p10, TTFT and TPOT p50/p90/p99; with repeats one point per planned
 * stage, the means over its repeats and their intervals {@code ci}, and {@code repeats}: count and
 * confidence), {@code stages[]} (run order:
 * per-second series with phases, TTFT and ITL CDF points, client health), {@code lengths}.
 */
final class PageData {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  /** At most this many bars in a length distribution. */
  static final int MAX_LENGTH_BINS = 40;

  private PageData() {}

  static ObjectNode of(SavedSummary s) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("simulated", s.simulated());
    List<Headline.Point> points = Headline.points(s);
    boolean closed = points.stream().allMatch(Headline.Point::closed);
    boolean open = points.stream().noneMatch(Headline.Point::closed);
    root.put("loadAxis", closed ? "concurrent users" : open ? "requests/s" : "stage");
    root.put("fluidTps", Headline.FLUID_TPS);
    ArrayNode curve = root.putArray("curve");
    for (Headline.Point p : points) {
      SavedSummary.Stage st = s.stage(p.stage());
      ObjectNode c = curve.addObject();
      c.put("stage", p.stage());
      c.put("label", p.label());
      num(c, "load", p.load());
      num(c, "aggTps", p.aggregateTps());
      num(c, "userP50", p.perUserTps());
      num(c, "userP10", p.slowUserTps());
      if (p.group() == null) {
        percentiles(c.putObject("ttft"), st.metrics().get(LatencyOrigin.headlineOf(st.detail().loadModel()).ttft().reportKey()));
        percentiles(c.putObject("tpot"), st.metrics().get(Metric.TPOT.reportKey()));
      } else {
        repeats(c, p.group());
      }
    }
    if (s.repeats() != null) {
      root.putObject("repeats").put("count", s.repeats().count()).put("confidence", s.repeats().confidence());
    }
    ArrayNode stages = root.putArray("stages");
    for (SavedSummary.Stage st : s.stages()) {
      stages.add(stage(s, st));
    }
    energy(root, s);
    ObjectNode lengths = root.putObject("lengths");
    lengths(lengths.putObject("input"), merged(s, Metric.INPUT_TOKENS));
    lengths(lengths.putObject("output"), merged(s, Metric.OUTPUT_TOKENS));
    return root;
  }

  /**
   * {@code energy}: per stage with GPU figures, in run order, its label, mean power (W), mean
   * utilisation (%) and joules per output token; absent when no stage has them.
   */
  private static void energy(ObjectNode root, SavedSummary s) {
    if (s.stages().stream().allMatch(st -> st.detail().gpu() == null)) {
      return;
    }
    ObjectNode e = root.putObject("energy");
    ArrayNode labels = e.putArray("labels");
    ArrayNode power = e.putArray("power");
    ArrayNode util = e.putArray("util");
    ArrayNode perToken = e.putArray("joulesPerToken");
    for (SavedSummary.Stage st : s.stages()) {
      dev.tokenmeter.scrape.GpuStage g = st.detail().gpu();
      labels.add(Headline.stageName(s, st));
      num(power, g == null ? Double.NaN : g.powerMeanWatts());
      num(util, g == null ? Double.NaN : g.utilMeanPercent());
      num(perToken, g == null ? Double.NaN : g.joulesPerOutputToken());
    }
  }

  private static ObjectNode stage(SavedSummary s, SavedSummary.Stage st) {
    ObjectNode o = MAPPER.createObjectNode();
    o.put("index", st.index());
    o.put("label", Headline.stageName(s, st));
    StageDetail d = st.detail();
    StageDetail.Series ts = d.series();
    if (ts != null) {
      ObjectNode series = o.putObject("series");
      num(series, "interval", ts.intervalSeconds());
      ArrayNode phases = series.putArray("phases");
      for (StageDetail.PhaseSpan p : ts.phases()) {
        ArrayNode a = phases.addArray().add(p.phase());
        num(a, p.startSeconds());
        num(a, p.endSeconds());
      }
      ArrayNode tps = series.putArray("tps");
      for (long tokens : ts.outputTokens()) {
        num(tps, tokens / ts.intervalSeconds());
      }
      ArrayNode inFlight = series.putArray("inFlight");
      for (double v : ts.meanInFlight()) {
        num(inFlight, v);
      }
      ArrayNode ttft = series.putArray("ttft");
      for (double v : ts.meanTtftMillis()) {
        num(ttft, v);
      }
      ArrayNode errors = series.putArray("errors");
      for (long v : ts.failed()) {
        errors.add(v);
      }
    }
    ServerStage server = d.server();
    if (server != null) {
      ObjectNode srv = o.putObject("server");
      ServerStage.Series ss = server.series();
      double[][] columns = {ss.offsetSeconds(), ss.waiting(), ss.running(), ss.kvCacheUsage()};
      String[] names = {"t", "waiting", "running", "kv"};
      for (int c = 0; c < columns.length; c++) {
        ArrayNode a = srv.putArray(names[c]);
        for (double v : columns[c]) {
          num(a, c == 3 ? v * 100 : v); // KV usage in percent
        }
      }
    }
    dev.tokenmeter.scrape.GpuStage gpu = d.gpu();
    if (gpu != null && gpu.series().offsetSeconds().length > 0) {
      ObjectNode g = o.putObject("gpu");
      double[][] columns = {gpu.series().offsetSeconds(), gpu.series().powerWatts(), gpu.series().utilPercent()};
      String[] names = {"t", "power", "util"};
      for (int c = 0; c < columns.length; c++) {
        ArrayNode a = g.putArray(names[c]);
        for (double v : columns[c]) {
          num(a, v);
        }
      }
    }
    ObjectNode cdf = o.putObject("cdf");
    Metric ttft = LatencyOrigin.headlineOf(d.loadModel()).ttft(); // the user's wait: from the schedule in an open loop
    cdf(cdf.putArray("ttft"), st.histograms().get(ttft), ttft);
    cdf(cdf.putArray("itl"), st.histograms().get(Metric.ITL), Metric.ITL);
    StageDetail.Health h = d.health();
    if (h != null) {
      ObjectNode health = o.putObject("health");
      health.put("bottleneck", h.bottleneck());
      num(health, "loopLagP99", h.loopLagMillis().p99());
      num(health, "sendLagP99", h.sendLagMillis().p99());
      num(health, "cpuOneCore", h.cpuFractionOfOneCore());
      num(health, "loopCpu", h.loopThreadCpuFraction());
    }
    return o;
  }

  /**
   * A planned stage's point with repeats: TTFT and TPOT p50 and p99 as the means over the repeats
   * (no p90: summary.json's repeats do not have it), and {@code ci}, the confidence interval
   * {@code [low, high]} of each plotted mean.
   */
  private static void repeats(ObjectNode c, Repeats.Group g) {
    ObjectNode ttft = c.putObject("ttft");
    num(ttft, "p50", g.estimate(Repeats.Headline.TTFT_P50).mean());
    ttft.putNull("p90");
    num(ttft, "p99", g.estimate(Repeats.Headline.TTFT_P99).mean());
    ObjectNode tpot = c.putObject("tpot");
    num(tpot, "p50", g.estimate(Repeats.Headline.TPOT_P50).mean());
    tpot.putNull("p90");
    num(tpot, "p99", g.estimate(Repeats.Headline.TPOT_P99).mean());
    ObjectNode ci = c.putObject("ci");
    interval(ci, "userP50", g.estimate(Repeats.Headline.DECODE_TPS_P50));
    interval(ci, "userP10", g.estimate(Repeats.Headline.DECODE_TPS_P10));
    interval(ci, "aggTps", g.estimate(Repeats.Headline.OUTPUT_TPS));
    interval(ci, "ttftP50", g.estimate(Repeats.Headline.TTFT_P50));
    interval(ci, "ttftP99", g.estimate(Repeats.Headline.TTFT_P99));
    interval(ci, "tpotP50", g.estimate(Repeats.Headline.TPOT_P50));
    interval(ci, "tpotP99", g.estimate(Repeats.Headline.TPOT_P99));
  }

  private static void interval(ObjectNode ci, String field, Repeats.Estimate e) {
    ArrayNode a = ci.putArray(field);
    num(a, e.low());
    num(a, e.high());
  }

  private static void percentiles(ObjectNode o, Distribution d) {
    Distribution x = d == null ? Distribution.EMPTY : d;
    num(o, "p50", x.p50());
    num(o, "p90", x.p90());
    num(o, "p99", x.p99());
  }

  /** {@code [value, fraction]} pairs in report units: the CDF at every 1% and at the tail ({@link Cdf}). */
  static void cdf(ArrayNode out, Histogram h, Metric m) {
    double[] values = Cdf.values(h, m);
    for (int i = 0; i < values.length; i++) {
      ArrayNode point = out.addArray();
      num(point, values[i]);
      point.add(Cdf.fraction(i));
    }
  }

  /** One histogram of {@code m} over every stage's measured requests. */
  private static Histogram merged(SavedSummary s, Metric m) {
    Histogram all = null;
    for (SavedSummary.Stage st : s.stages()) {
      Histogram h = st.histograms().get(m);
      if (h != null) {
        if (all == null) {
          all = new Histogram(h.getNumberOfSignificantValueDigits());
        }
        all.add(h);
      }
    }
    return all;
  }

  /**
   * Bins a token-count histogram into at most {@link #MAX_LENGTH_BINS} bars of equal integer width:
   * {@code labels[]} ("512" or "500–524") and {@code counts[]}.
   */
  static void lengths(ObjectNode o, Histogram h) {
    ArrayNode labels = o.putArray("labels");
    ArrayNode counts = o.putArray("counts");
    if (h == null || h.getTotalCount() == 0) {
      return;
    }
    long min = h.getMinValue();
    long max = h.getMaxValue();
    long width = Math.max(1, (max - min + MAX_LENGTH_BINS) / MAX_LENGTH_BINS);
    int bins = (int) ((max - min) / width) + 1;
    long[] binCounts = new long[bins];
    h.recordedValues().forEach(v -> {
      long value = Math.min(max, h.highestEquivalentValue(v.getValueIteratedTo()));
      binCounts[(int) ((value - min) / width)] += v.getCountAtValueIteratedTo();
    });
    for (int i = 0; i < bins; i++) {
      long lo = min + i * width;
      labels.add(width == 1 ? Long.toString(lo) : lo + "–" + (lo + width - 1));
      counts.add(binCounts[i]);
    }
  }

  private static void num(ObjectNode o, String field, double v) {
    if (Double.isFinite(v)) {
      o.put(field, v);
    } else {
      o.putNull(field);
    }
  }

  private static void num(ArrayNode a, double v) {
    if (Double.isFinite(v)) {
      a.add(v);
    } else {
      a.addNull();
    }
  }
}
