package dev.tokenmeter.report;

import dev.tokenmeter.core.analysis.ClientCpu;
import dev.tokenmeter.core.analysis.ClientHealth;
import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.analysis.SteadyState;
import dev.tokenmeter.core.analysis.TimeSeries;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.TokenCountSource;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.HdrHistogram.Histogram;

/**
 * Rebuilds the {@link StageResult} of a stage the process died in, from the requests it finished
 * ({@code requests.jsonl}) and its plan ({@link StagePlanJson}). Stateless.
 *
 * <p>What is exact and what is not (docs/RELIABILITY.md, "Crash recovery"): every per-request
 * distribution (TTFT, TPOT, E2E, decode TPS, connect, token counts), the request and error counts,
 * input tokens/s and requests/s are what a finished stage would have reported for the same
 * requests. The file holds no per-token arrival times, so ITL is left out (empty), each request's
 * output tokens are spread evenly from its first to its last token for output tokens/s and the
 * per-second series (an estimate for requests that straddle a window edge or a second), and the
 * steady-state test is not run. Requests still in flight when the process died have no line and
 * are not counted; achieved concurrency counts the requests that ended.
 */
final class RecoveredStage {
  private static final long SECOND_NANOS = TimeSeries.INTERVAL_NANOS;

  private RecoveredStage() {}

  /** The stage {@code running} from its requests' lines ({@code lines} of that stage only). */
  static StageResult build(StagePlanJson.Running running, List<SavedRequest> lines) {
    StagePlan plan = running.plan();
    long start = running.stageStartNanos();
    long end = start;
    for (SavedRequest r : lines) {
      end = Math.max(end, r.endNanos());
    }
    StageResult.Window window = window(plan, start, end, lines);
    long winStart = window.startOffsetNanos() < 0 ? Long.MAX_VALUE : start + window.startOffsetNanos();
    long winEnd = window.startOffsetNanos() < 0 ? Long.MAX_VALUE : start + window.endOffsetNanos();
    EnumMap<Metric, Histogram> ok = histograms();
    EnumMap<Metric, Histogram> failed = histograms();
    long[][] phases = new long[Phase.values().length][2];
    Map<ErrorClass, Long> errors = new EnumMap<>(ErrorClass.class);
    Map<TokenCountSource, Long> sources = new EnumMap<>(TokenCountSource.class);
    for (TokenCountSource s : TokenCountSource.values()) {
      sources.put(s, 0L);
    }
    long windowOutput = 0;
    long windowInput = 0;
    long inFlightIntegral = 0;
    long words = 0;
    long wordTokens = 0;
    dev.tokenmeter.core.metrics.FinishTally finishes = new dev.tokenmeter.core.metrics.FinishTally();
    for (SavedRequest r : lines) {
      windowOutput += tokensIn(r, winStart, winEnd);
      if (r.sentNanos() >= 0) {
        inFlightIntegral += Math.max(0, Math.min(r.endNanos(), winEnd) - Math.max(r.sentNanos(), winStart));
      }
      if (!r.ok() && r.errorClass() == ErrorClass.CANCELLED) {
        continue; // the tool's own cancellation: neither completed nor failed, as StageRecorder counts
      }
      phases[r.phase().ordinal()][r.ok() ? 0 : 1]++;
      if (r.phase() != Phase.MEASURED) {
        continue;
      }
      record(r.ok() ? ok : failed, r);
      sources.merge(r.source(), 1L, Long::sum);
      finishes.add(r.errorClass(), r.finishReason(), r.maxTokens(), r.outputTokens());
      if (r.ok()) {
        windowInput += Math.max(0, r.inputTokens());
        if (r.reasoningChars() == 0) {
          words += r.outputWords();
          wordTokens += r.outputTokens();
        }
      } else {
        errors.merge(r.errorClass(), 1L, Long::sum);
      }
    }
    long windowNanos = window.lengthNanos();
    double seconds = windowNanos / 1e9;
    long completed = phases[Phase.MEASURED.ordinal()][0];
    StageResult.Throughput throughput = new StageResult.Throughput(
        perSecond(windowOutput, seconds), perSecond(windowInput, seconds), perSecond(completed, seconds),
        Double.NaN, windowNanos > 0 ? (double) inFlightIntegral / windowNanos : Double.NaN,
        windowOutput, windowInput);
    TimeSeries series = series(start, end - start, window, lines);
    Map<Metric, Distribution> okDists = new EnumMap<>(Metric.class);
    Map<Metric, Distribution> failedDists = new EnumMap<>(Metric.class);
    Map<Metric, Histogram> okKept = summarize(ok, false, okDists);
    Map<Metric, Histogram> failedKept = summarize(failed, true, failedDists);
    return new StageResult(plan, running.label(), start, end - start, window, okDists, failedDists, throughput,
        counts(phases), errors, tokens(sources, words, wordTokens), finishes.result(), notAssessed(),
        ClientHealth.assess(new Histogram(3), new Histogram(3), ClientCpu.UNKNOWN, end - start, 0,
            plan.load() instanceof LoadModel.Open),
        series, okKept, failedKept, RecoveredSessions.of(lines));
  }

  /** The window as planned, cut at the last request's end: never complete unless the plan's end passed. */
  private static StageResult.Window window(StagePlan plan, long start, long end, List<SavedRequest> lines) {
    long winStart = start + plan.warmupNanos();
    if (end <= winStart) {
      return new StageResult.Window(-1, -1, false);
    }
    return switch (plan.stop()) {
      case StopCondition.Duration d -> {
        long planned = winStart + d.nanos();
        yield new StageResult.Window(plan.warmupNanos(), Math.min(planned, end) - start, planned <= end);
      }
      case StopCondition.Requests q -> {
        long measured = lines.stream().filter(r -> r.phase() == Phase.MEASURED).count();
        yield new StageResult.Window(plan.warmupNanos(), end - start, measured >= q.count());
      }
    };
  }

  /**
   * Output tokens of {@code r} that arrived in {@code [from, to)}: its first token at its first-token
   * time, the other {@code n − 1} spread evenly over {@code (firstToken, lastToken]}.
   */
  static long tokensIn(SavedRequest r, long from, long to) {
    long first = r.firstTokenNanos();
    int n = r.outputTokens();
    if (first < 0 || n <= 0) {
      return 0;
    }
    long count = first >= from && first < to ? 1 : 0;
    if (n == 1) {
      return count;
    }
    long last = r.lastTokenNanos();
    if (last <= first) {
      return count + (first >= from && first < to ? n - 1 : 0);
    }
    long overlap = Math.max(0, Math.min(last, to) - Math.max(first, from));
    return count + Math.round((double) (n - 1) * overlap / (last - first));
  }

  /** The distributions a line holds, each with its value in the metric's recorded unit (-1: none). */
  private static final Map<Metric, ToLongFunction<SavedRequest>> FIELDS = fields();

  private static Map<Metric, ToLongFunction<SavedRequest>> fields() {
    Map<Metric, ToLongFunction<SavedRequest>> f = new EnumMap<>(Metric.class);
    f.put(Metric.TTFT, SavedRequest::ttftNanos);
    f.put(Metric.TTFT_FROM_SCHEDULED, SavedRequest::ttftFromScheduledNanos);
    f.put(Metric.TTFC, SavedRequest::ttfcNanos);
    f.put(Metric.E2E, SavedRequest::e2eNanos);
    f.put(Metric.E2E_FROM_SCHEDULED, SavedRequest::e2eFromScheduledNanos);
    f.put(Metric.CONNECT, SavedRequest::connectNanos);
    f.put(Metric.SCHEDULED_TO_SENT, r -> r.sentNanos() < 0 ? -1 : r.sentNanos() - r.scheduledNanos());
    f.put(Metric.TPOT, r -> Double.isNaN(r.tpotNanos()) ? -1 : Math.round(r.tpotNanos()));
    f.put(Metric.DECODE_TPS, r -> Double.isNaN(r.decodeTokensPerSecond()) ? -1
        : Math.round(r.decodeTokensPerSecond() * 1000)); // milli-tokens per second
    f.put(Metric.OUTPUT_TOKENS, SavedRequest::outputTokens);
    f.put(Metric.INPUT_TOKENS, SavedRequest::inputTokens);
    return f;
  }

  private static void record(EnumMap<Metric, Histogram> h, SavedRequest r) {
    FIELDS.forEach((m, value) -> {
      long v = value.applyAsLong(r);
      if (v >= 0) {
        h.get(m).recordValue(v);
      }
    });
  }

  /** Per second of the stage: ends, first tokens, mean in flight and output tokens (spread). */
  private static TimeSeries series(long start, long length, StageResult.Window w, List<SavedRequest> lines) {
    int n = (int) Math.max(1, (length + SECOND_NANOS - 1) / SECOND_NANOS);
    long[] tokens = new long[n];
    long[] completed = new long[n];
    long[] failed = new long[n];
    double[] inFlight = new double[n];
    long[] firsts = new long[n];
    long[] ttftSum = new long[n];
    for (SavedRequest r : lines) {
      int endSecond = second(r.endNanos() - start, n);
      if (r.ok()) {
        completed[endSecond]++;
      } else if (r.errorClass() != ErrorClass.CANCELLED) {
        failed[endSecond]++;
      }
      if (r.firstTokenNanos() >= 0) {
        int s = second(r.firstTokenNanos() - start, n);
        firsts[s]++;
        ttftSum[s] += r.ttftNanos();
      }
      for (int s = 0; s < n; s++) {
        long a = start + s * SECOND_NANOS;
        long b = Math.min(a + SECOND_NANOS, start + length);
        tokens[s] += tokensIn(r, a, s == n - 1 ? Long.MAX_VALUE : b);
        if (r.sentNanos() >= 0 && b > a) {
          inFlight[s] += (double) Math.max(0, Math.min(r.endNanos(), b) - Math.max(r.sentNanos(), a)) / (b - a);
        }
      }
    }
    return new TimeSeries(length, w.startOffsetNanos(), w.endOffsetNanos(), tokens, completed, failed,
        inFlight, firsts, ttftSum);
  }

  private static int second(long offsetNanos, int n) {
    return (int) Math.min(n - 1, Math.max(0, offsetNanos / SECOND_NANOS));
  }

  private static StageResult.RequestCounts counts(long[][] phases) {
    Map<Phase, StageResult.PhaseCounts> byPhase = new EnumMap<>(Phase.class);
    for (Phase p : Phase.values()) {
      byPhase.put(p, new StageResult.PhaseCounts(phases[p.ordinal()][0], phases[p.ordinal()][1]));
    }
    long[] m = phases[Phase.MEASURED.ordinal()];
    return new StageResult.RequestCounts(m[0], m[1], byPhase);
  }

  /** Sources and words; the prompt-overhead and usage-versus-tokenizer comparisons are not rebuilt. */
  private static StageResult.TokenAccounting tokens(Map<TokenCountSource, Long> sources, long words, long wordTokens) {
    return new StageResult.TokenAccounting(sources, 0,
        StageResult.PromptOverhead.none(),
        new StageResult.UsageVsTokenizer(null, 0, 0, Double.NaN, Double.NaN, 0, Double.NaN, Double.NaN),
        words, wordTokens);
  }

  private static SteadyState notAssessed() {
    return new SteadyState(false, SteadyState.Check.TOO_SHORT,
        "not assessed: the stage was rebuilt from requests.jsonl after the process died, which holds no"
            + " per-token arrival times", 0, List.of(), List.of());
  }

  private static double perSecond(long count, double seconds) {
    return seconds > 0 ? count / seconds : Double.NaN;
  }

  private static EnumMap<Metric, Histogram> histograms() {
    EnumMap<Metric, Histogram> map = new EnumMap<>(Metric.class);
    for (Metric m : Metric.values()) {
      map.put(m, new Histogram(3));
    }
    return map;
  }

  /**
   * The distributions of {@code h} (into {@code out}) and the histograms kept beside them (returned),
   * leaving out empty ones when {@code skipEmpty} (the failed requests' maps).
   */
  private static Map<Metric, Histogram> summarize(Map<Metric, Histogram> h, boolean skipEmpty,
      Map<Metric, Distribution> out) {
    Map<Metric, Histogram> kept = new EnumMap<>(Metric.class);
    for (Map.Entry<Metric, Histogram> e : h.entrySet()) {
      if (!skipEmpty || e.getValue().getTotalCount() > 0) {
        kept.put(e.getKey(), e.getValue());
        out.put(e.getKey(), Distribution.of(e.getValue(), e.getKey()));
      }
    }
    return kept;
  }
}
