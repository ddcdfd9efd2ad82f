package dev.tokenmeter.report;

import dev.tokenmeter.core.analysis.ClientHealth;
import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.analysis.LatencyOrigin;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.SendWait;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.analysis.Sweep;
import dev.tokenmeter.core.request.ErrorClass;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Terminal tables: one block per stage, and a one-row-per-stage sweep table. Pure functions of
 * {@link StageResult}s: nothing here computes a metric.
 */
public final class ConsoleReport {
  /** Per-user TPS below this fraction of the first stage's counts as "dropped". */
  public static final double DROP_FRACTION = 0.9;

  private ConsoleReport() {}

  /** The block for one stage; {@code stageCount} is -1 when the run decides its stages as it goes. */
  public static String stage(StageResult r, int stageCount) {
    return stage(r, stageCount, /* virtualTime= */ false);
  }

  /**
   * The block for one stage; {@code virtualTime} for a simulated stage, whose client line says
   * there was no client to watch (its lag is 0 by construction and its CPU is not the run's).
   */
  public static String stage(StageResult r, int stageCount, boolean virtualTime) {
    StringBuilder sb = new StringBuilder();
    double windowS = r.window().lengthNanos() / 1e9;
    sb.append(
        String.format(
            Locale.ROOT,
            "Stage %d%s  %s  window %.1f s%s  steady state: %s%n",
            r.plan().index() + 1,
            stageCount < 0 ? "" : "/" + stageCount,
            r.label(),
            windowS,
            r.window().complete() ? "" : " (cut short)",
            r.steadyState().reached() ? "reached" : "NOT reached (" + r.steadyState().reason() + ")"));
    var t = r.throughput();
    // A stage stopped before its window opened (Ctrl-C, a dead target in the warm-up) has no
    // rates: "-", never NaN; its warm-up's requests are what happened.
    sb.append(
        String.format(
            Locale.ROOT,
            "  requests: %d completed, %d failed   achieved concurrency %s%n",
            r.requests().completed(),
            r.requests().failed(),
            fixed("%.2f", t.achievedConcurrency())));
    if (r.window().startOffsetNanos() < 0) {
      StageResult.PhaseCounts warm = r.requests().byPhase().get(dev.tokenmeter.core.request.Phase.WARMUP);
      sb.append(String.format(Locale.ROOT, "  warm-up: %d completed, %d failed (the window never opened)%n",
          warm == null ? 0 : warm.completed(), warm == null ? 0 : warm.failed()));
    }
    sb.append(
        String.format(
            Locale.ROOT,
            "  throughput: output %s tok/s   input %s tok/s   %s req/s%n",
            fixed("%.1f", t.outputTokensPerSecond()),
            fixed("%.1f", t.inputTokensPerSecond()),
            fixed("%.2f", t.requestsPerSecond())));
    sb.append(
        String.format(
            Locale.ROOT, "  %-22s %9s %9s %9s %9s %9s %9s %9s%n", "", "mean", "p50", "p90", "p95", "p99", "p99.9", "max"));
    // The headline is the user's wait (docs/METRICS.md): from the schedule in an open loop, where
    // the send-based figure follows, named so; from the send in a closed loop.
    boolean fromSchedule = LatencyOrigin.headlineOf(r.plan().load()) == LatencyOrigin.SCHEDULED;
    row(sb, fromSchedule ? "TTFT ms (from schedule)" : "TTFT ms", r.metric(LatencyOrigin.headlineOf(r.plan().load()).ttft()));
    if (fromSchedule) {
      row(sb, "TTFT ms (from send)", r.metric(Metric.TTFT));
    }
    if (r.metrics().containsKey(Metric.TTFC)
        && r.metric(Metric.TTFC).count() > 0
        && r.metric(Metric.TTFC).mean() != r.metric(Metric.TTFT).mean()) {
      row(sb, "time to 1st answer ms", r.metric(Metric.TTFC));
    }
    row(sb, "TPOT ms", r.metric(Metric.TPOT));
    row(sb, "ITL ms (per token)", r.metric(Metric.ITL));
    row(sb, "ITL ms (per chunk)", r.metric(Metric.ITL_CHUNK));
    row(sb, fromSchedule ? "E2E ms (from schedule)" : "E2E ms", r.metric(LatencyOrigin.headlineOf(r.plan().load()).e2e()));
    if (fromSchedule) {
      row(sb, "E2E ms (from send)", r.metric(Metric.E2E));
    }
    row(sb, "output tokens", r.metric(Metric.OUTPUT_TOKENS));
    Distribution tps = r.metric(Metric.DECODE_TPS);
    sb.append(
        String.format(
            Locale.ROOT,
            "  per-user decode TPS:   mean %s  p50 %s  slow tail p10 %s  p5 %s  p1 %s%n",
            num(tps.mean()),
            num(tps.p50()),
            num(tps.p10()),
            num(tps.p5()),
            num(tps.p1())));
    if (r.requests().tpotUndefined() > 0) {
      sb.append(String.format(Locale.ROOT,
          "  note: %d requests have no TPOT or per-user TPS (one output token, or every token in one read)%n",
          r.requests().tpotUndefined()));
    }
    SendWait wait = SendWait.of(r);
    if (wait.material()) {
      sb.append(String.format(Locale.ROOT,
          "  note: requests waited %s ms (p99) from schedule to send, %s%% of TTFT p99: TTFT and E2E are"
              + " from the schedule; from the send TTFT p99 is %s ms%n",
          num(wait.waitP99Millis()), num(100 * wait.fractionOfTtft()), num(wait.ttftSentP99Millis())));
    }
    if (!r.errors().isEmpty()) {
      sb.append("  errors: ").append(errors(r.errors())).append(System.lineSeparator());
    }
    String finishes = finishes(r.finishes());
    if (!finishes.isEmpty()) {
      sb.append("  finish: ").append(finishes).append(System.lineSeparator());
    }
    var tok = r.tokens();
    if (tok.usageChunkDisagreements() > 0) {
      sb.append(
          String.format(
              Locale.ROOT,
              "  note: %d requests' usage.completion_tokens differ from their chunk count (several tokens per chunk?)%n",
              tok.usageChunkDisagreements()));
    }
    var vs = tok.usageVsTokenizer();
    if (vs.disagreements() > 0) {
      sb.append(
          String.format(
              Locale.ROOT,
              "  note: usage and %s disagree on %d of %d requests, mean |diff| %.1f tokens (max %d)%n",
              vs.tokenizer(),
              vs.disagreements(),
              vs.compared(),
              vs.meanAbsDiffTokens(),
              vs.maxAbsDiffTokens()));
    }
    String prompts = promptCountNote(tok.promptOverhead(), vs.tokenizer());
    if (!prompts.isEmpty()) {
      sb.append("  note: ").append(prompts).append(System.lineSeparator());
    }
    // Before the window the client is not watched, and CPU over a stage of milliseconds read 1211%.
    String client = virtualTime ? "none: simulated in virtual time, every time above is the engine model's prediction"
        : r.window().startOffsetNanos() < 0 ? "not watched (the window never opened)" : health(r.clientHealth());
    sb.append("  client: ")
        .append(client)
        .append(System.lineSeparator());
    return sb.toString();
  }

  /**
   * When the server counts prompts unlike bench ({@link StageResult.PromptOverhead#countsDiffer}),
   * the two counts, their ratio and the fix, e.g. {@code the server counts 33% more prompt tokens
   * than o200k_base (mean 3699 vs 2772 a request; a chat template adds tens): set --tokenizer to
   * the model's own (docs/TOKENIZERS.md)}; empty when they agree. {@code tokenizer}: the client's,
   * null when it had none.
   */
  public static String promptCountNote(StageResult.PromptOverhead p, String tokenizer) {
    if (!p.countsDiffer()) {
      return "";
    }
    boolean estimated = p.estimatedCount() > 0 || tokenizer == null;
    double rel = p.relative();
    return String.format(Locale.ROOT,
        "the server counts %.0f%% %s prompt tokens than %s (mean %.0f vs %.0f a request; a chat template adds tens): %s",
        100 * Math.abs(rel), rel > 0 ? "more" : "fewer", estimated ? "bench's estimate" : tokenizer,
        p.meanClientTokens() + p.meanTokens(), p.meanClientTokens(),
        estimated ? "pass --tokenizer with the model's own for exact counts (docs/TOKENIZERS.md)"
            : "set --tokenizer to the model's own (docs/TOKENIZERS.md)");
  }

  /**
   * Why answers ended, the non-zero classes in order, and how many reached their max_tokens:
   * {@code stop 812, length 40, content_filter 3; 40 of 855 answers (4.7%) reached max_tokens};
   * empty when no answer was classified.
   */
  public static String finishes(StageResult.Finishes f) {
    if (f.answers() == 0) {
      return "";
    }
    StringBuilder sb = new StringBuilder();
    f.byClass().forEach((c, n) -> {
      if (n > 0) {
        sb.append(sb.isEmpty() ? "" : ", ").append(c.wireName()).append(' ').append(n);
      }
    });
    if (f.withMaxTokens() > 0) {
      sb.append(String.format(Locale.ROOT, "; %d of %d answers (%s%%) reached max_tokens", f.reachedMaxTokens(),
          f.withMaxTokens(), num(100 * f.reachedShare())));
    }
    return sb.toString();
  }

  /**
   * A note when a stage asked every answer to run to its max_tokens ({@code asked}: the option,
   * {@code ignore_eos}) and some did not: the server did not honour it. Empty when all did (the
   * finish line says so) or no answer named a limit.
   */
  public static String ranToMax(StageResult.Finishes f, String asked) {
    long early = f.withMaxTokens() - f.reachedMaxTokens();
    return early == 0
        ? ""
        : String.format(Locale.ROOT, "  note: %s not honoured: %d of %d answers (%s%%) ended before max_tokens;"
            + " output lengths are the model's own, not the ones asked for%n", asked, early, f.withMaxTokens(),
            num(100.0 * early / f.withMaxTokens()));
  }

  /** Default knee bar of {@link #sweep(List)}: 30 tokens/s, a common bar for fluid streaming. */
  public static final double DEFAULT_KNEE_TPS = 30;

  /** The degradation curve of {@code stages} with the default knee bar. */
  public static String sweep(List<StageResult> stages) {
    return sweep(stages, Sweep.of(stages, DEFAULT_KNEE_TPS, Double.NaN));
  }

  /**
   * The degradation curve: one row per load, in load order (per-user decode TPS p50 and its slow
   * tail p10, aggregate output TPS, TTFT p50/p90/p99, TPOT p50/p99, errors, and goodput when an SLO
   * gave one), then where per-user TPS starts to drop and the knee.
   */
  public static String sweep(List<StageResult> stages, Sweep curve) {
    boolean goodput = curve.points().stream().anyMatch(p -> !Double.isNaN(p.goodputRequestsPerSecond()));
    String fmt = "%-22s %8s %8s %11s %8s %8s %8s %8s %8s %8s %6s %8s" + (goodput ? " %8s" : "%s") + "%n";
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, fmt, "load", "user TPS", "user TPS", "output", "TTFT", "TTFT", "TTFT",
        "TPOT", "TPOT", "ok", "err", "req/s", goodput ? "goodput" : ""));
    sb.append(String.format(Locale.ROOT, fmt, "", "p50", "p10", "tok/s", "p50 ms", "p90 ms", "p99 ms",
        "p50 ms", "p99 ms", "", "%", "", goodput ? "req/s" : ""));
    for (Sweep.Point p : curve.points()) {
      StageResult r = stages.stream().filter(x -> x.plan().index() == p.index()).findFirst().orElse(null);
      sb.append(String.format(Locale.ROOT, fmt, p.label(), num(p.decodeTpsP50()), num(p.decodeTpsP10()),
          num(p.outputTokensPerSecond()), num(p.ttftP50Millis()), num(p.ttftP90Millis()), num(p.ttftP99Millis()),
          num(p.tpotP50Millis()), num(p.tpotP99Millis()), r == null ? "-" : Long.toString(r.requests().completed()),
          percent(p.errorPercent()), num(p.requestsPerSecond()), goodput ? num(p.goodputRequestsPerSecond()) : ""));
    }
    if (curve.points().stream().anyMatch(p -> p.ttftFrom() == LatencyOrigin.SCHEDULED)) {
      sb.append("TTFT is from the schedule (open loop: the user's wait, queueing included).")
          .append(System.lineSeparator());
    }
    String drop = dropStatement(stages);
    if (drop != null) {
      sb.append(drop).append(System.lineSeparator());
    }
    sb.append(curve.knee().statement()).append(System.lineSeparator());
    return sb.toString();
  }

  private static String percent(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f", v);
  }

  /**
   * Where median per-user decode TPS first falls below {@link #DROP_FRACTION} of the first stage's,
   * or null with fewer than two stages.
   */
  static String dropStatement(List<StageResult> stages) {
    if (stages.size() < 2) {
      return null;
    }
    double base = stages.get(0).metric(Metric.DECODE_TPS).p50();
    if (!(base > 0)) {
      return null;
    }
    for (int i = 1; i < stages.size(); i++) {
      double v = stages.get(i).metric(Metric.DECODE_TPS).p50();
      if (v < DROP_FRACTION * base) {
        return String.format(
            Locale.ROOT,
            "Per-user TPS starts to drop at %s: median %.1f tok/s, %.0f%% below %s's %.1f tok/s.",
            stages.get(i).label(),
            v,
            100 * (1 - v / base),
            stages.get(0).label(),
            base);
      }
    }
    return String.format(
        Locale.ROOT,
        "Per-user TPS held within %.0f%% of %s's %.1f tok/s at every load tested.",
        100 * (1 - DROP_FRACTION),
        stages.get(0).label(),
        base);
  }

  private static void row(StringBuilder sb, String name, Distribution d) {
    if (d.count() == 0) {
      return;
    }
    sb.append(
        String.format(
            Locale.ROOT,
            "  %-22s %9s %9s %9s %9s %9s %9s %9s%n",
            name,
            num(d.mean()),
            num(d.p50()),
            num(d.p90()),
            num(d.p95()),
            num(d.p99()),
            num(d.p999()),
            num(d.max())));
  }

  /** "http_429 3, truncated 1". */
  public static String errors(Map<ErrorClass, Long> errors) {
    return errors.entrySet().stream()
        .map(e -> e.getKey().wireName() + " " + e.getValue())
        .collect(Collectors.joining(", "));
  }

  /**
   * The client line's text after "client: ": lags, CPU, loops, and the bottleneck verdict; with a
   * note when the client had a single CPU (docs/PERFORMANCE.md, "Timing against the kernel's
   * clock": there the JIT compiler threads the event loop wakes preempt it for up to 5 ms).
   */
  static String health(ClientHealth h) {
    String base =
        String.format(
            Locale.ROOT,
            "loop lag p99 %s ms, send lag p99 %s ms, CPU %s%% of one core",
            num(h.loopLagMillis().p99()),
            num(h.sendLagMillis().p99()),
            fixed("%.0f", 100 * h.cpuFractionOfOneCore()))
            + (h.eventLoops() > 1 ? ", " + h.eventLoops() + " event loops" : "");
    String oneCpu = h.availableProcessors() == 1
        ? System.lineSeparator() + "  note: " + ClientHealth.ONE_CPU_NOTE
            + "; give it two or more CPUs for exact tails (docs/PERFORMANCE.md, timing against the kernel's clock)"
        : "";
    if (h.bottleneck()) {
      return base + System.lineSeparator() + "  WARNING: the client may have been the bottleneck: "
          + String.join("; ", h.reasons()) + oneCpu;
    }
    return base + " (not the bottleneck)" + oneCpu;
  }

  /** {@code v} in {@code format}, or "-" when it is NaN or infinite. */
  private static String fixed(String format, double v) {
    return Double.isNaN(v) || Double.isInfinite(v) ? "-" : String.format(Locale.ROOT, format, v);
  }

  /** A number for a table: 3 significant figures-ish, "-" when undefined. */
  static String num(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return "-";
    }
    double a = Math.abs(v);
    if (a >= 1000) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    if (a >= 100) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    return String.format(Locale.ROOT, "%.2f", v);
  }
}
