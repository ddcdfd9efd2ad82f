package dev.tokenmeter.core.analysis;

import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.FinishClass;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.TokenCountSource;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import org.HdrHistogram.Histogram;

/**
 * Everything a report needs about one finished stage, immutable except that the raw histograms
 * (kept for encoding and merging) must not be modified by readers.
 *
 * <p>Latency distributions and request counts hold {@link Phase#MEASURED} requests only;
 * successes in {@link #metrics()}, failures apart in {@link #failedMetrics()}. Throughputs are per
 * second of the window. See {@code docs/METRICS.md} for each definition.
 *
 * @param plan the stage's plan
 * @param label human-readable label ({@code "c=25"})
 * @param stageStartNanos ticker time the stage started
 * @param stageLengthNanos stage length, warm-up and cool-down included
 * @param window the measurement window
 * @param metrics distributions of successful measured requests (and the client-lag metrics)
 * @param failedMetrics distributions of failed measured requests, where their timings exist
 * @param throughput window throughputs and achieved concurrency
 * @param requests request counts
 * @param errors failed measured requests by class (classes with no failure left out)
 * @param tokens output-token sources and count disagreements
 * @param finishes why measured answers ended, and how many ran to their max_tokens
 * @param steadyState steady-state verdict
 * @param clientHealth the client's self-watch verdict
 * @param timeSeries per-second series over the whole stage
 * @param histograms raw histograms behind {@code metrics}, in each metric's recorded unit
 * @param failedHistograms raw histograms behind {@code failedMetrics}
 * @param sessions the stage's conversations ({@code --turns}), null for a stage without sessions
 * @param completions the stage's code-completion requests ({@code --profile completion}), null
 *     for a stage without them
 */
public record StageResult(
    StagePlan plan,
    String label,
    long stageStartNanos,
    long stageLengthNanos,
    Window window,
    Map<Metric, Distribution> metrics,
    Map<Metric, Distribution> failedMetrics,
    Throughput throughput,
    RequestCounts requests,
    Map<ErrorClass, Long> errors,
    TokenAccounting tokens,
    Finishes finishes,
    SteadyState steadyState,
    ClientHealth clientHealth,
    TimeSeries timeSeries,
    Map<Metric, Histogram> histograms,
    Map<Metric, Histogram> failedHistograms,
    Sessions sessions,
    Completions completions) {

  /** A stage without sessions. */
  public StageResult(
      StagePlan plan,
      String label,
      long stageStartNanos,
      long stageLengthNanos,
      Window window,
      Map<Metric, Distribution> metrics,
      Map<Metric, Distribution> failedMetrics,
      Throughput throughput,
      RequestCounts requests,
      Map<ErrorClass, Long> errors,
      TokenAccounting tokens,
      Finishes finishes,
      SteadyState steadyState,
      ClientHealth clientHealth,
      TimeSeries timeSeries,
      Map<Metric, Histogram> histograms,
      Map<Metric, Histogram> failedHistograms) {
    this(plan, label, stageStartNanos, stageLengthNanos, window, metrics, failedMetrics, throughput, requests,
        errors, tokens, finishes, steadyState, clientHealth, timeSeries, histograms, failedHistograms, null, null);
  }

  /** A stage without code-completion requests. */
  public StageResult(
      StagePlan plan,
      String label,
      long stageStartNanos,
      long stageLengthNanos,
      Window window,
      Map<Metric, Distribution> metrics,
      Map<Metric, Distribution> failedMetrics,
      Throughput throughput,
      RequestCounts requests,
      Map<ErrorClass, Long> errors,
      TokenAccounting tokens,
      Finishes finishes,
      SteadyState steadyState,
      ClientHealth clientHealth,
      TimeSeries timeSeries,
      Map<Metric, Histogram> histograms,
      Map<Metric, Histogram> failedHistograms,
      Sessions sessions) {
    this(plan, label, stageStartNanos, stageLengthNanos, window, metrics, failedMetrics, throughput, requests,
        errors, tokens, finishes, steadyState, clientHealth, timeSeries, histograms, failedHistograms, sessions, null);
  }

  /** This stage with {@code c} as its code-completion tally. */
  public StageResult withCompletions(Completions c) {
    return new StageResult(plan, label, stageStartNanos, stageLengthNanos, window, metrics, failedMetrics,
        throughput, requests, errors, tokens, finishes, steadyState, clientHealth, timeSeries, histograms,
        failedHistograms, sessions, c);
  }

  public StageResult {
    Objects.requireNonNull(plan, "plan");
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(finishes, "finishes");
    metrics = frozen(metrics, Metric.class);
    failedMetrics = frozen(failedMetrics, Metric.class);
    errors = frozen(errors, ErrorClass.class);
    histograms = frozen(histograms, Metric.class);
    failedHistograms = frozen(failedHistograms, Metric.class);
  }

  /** The distribution of successful measured requests for {@code m}, empty when none. */
  public Distribution metric(Metric m) {
    return metrics.getOrDefault(m, Distribution.EMPTY);
  }

  /**
   * This stage with its goodput filled in: {@code goodRequests} (measured requests that met every
   * per-request objective) per second of window, NaN when the window has no length.
   */
  public StageResult withGoodput(long goodRequests) {
    double seconds = window.lengthNanos() / 1e9;
    Throughput t = throughput;
    Throughput withGoodput =
        new Throughput(t.outputTokensPerSecond(), t.inputTokensPerSecond(), t.requestsPerSecond(),
            seconds > 0 ? goodRequests / seconds : Double.NaN, t.achievedConcurrency(),
            t.windowOutputTokens(), t.windowInputTokens());
    return new StageResult(plan, label, stageStartNanos, stageLengthNanos, window, metrics, failedMetrics,
        withGoodput, requests, errors, tokens, finishes, steadyState, clientHealth, timeSeries, histograms, failedHistograms, sessions, completions);
  }

  private static <K extends Enum<K>, V> Map<K, V> frozen(Map<K, V> map, Class<K> type) {
    EnumMap<K, V> copy = new EnumMap<>(type);
    copy.putAll(map);
    return Collections.unmodifiableMap(copy);
  }

  /**
   * The measurement window, as offsets from the stage start.
   *
   * @param startOffsetNanos window start, -1 when the window never started
   * @param endOffsetNanos window end, -1 when it never started; the stage end when it never ended
   * @param complete false when the stage finished before the window's planned end (interrupted)
   */
  public record Window(long startOffsetNanos, long endOffsetNanos, boolean complete) {
    /** Window length in nanoseconds, 0 when it never started. */
    public long lengthNanos() {
      return startOffsetNanos < 0 ? 0 : endOffsetNanos - startOffsetNanos;
    }
  }

  /**
   * Throughputs over the window. NaN when the window has no length.
   *
   * @param outputTokensPerSecond output tokens (every request, every phase) whose chunk arrived in
   *     the window, per second of window
   * @param inputTokensPerSecond prompt tokens of completed measured requests per second of window
   *     (a request refused with 429 had no prompt processed, so failures are left out)
   * @param requestsPerSecond completed measured requests per second of window
   * @param goodputRequestsPerSecond measured requests meeting every per-request SLO objective per
   *     second of window (see {@code docs/METRICS.md}, "Goodput"); NaN when no SLO was given
   * @param achievedConcurrency time-weighted mean of requests in flight over the window
   * @param windowOutputTokens the numerator of {@code outputTokensPerSecond}
   * @param windowInputTokens the numerator of {@code inputTokensPerSecond}
   */
  public record Throughput(
      double outputTokensPerSecond,
      double inputTokensPerSecond,
      double requestsPerSecond,
      double goodputRequestsPerSecond,
      double achievedConcurrency,
      long windowOutputTokens,
      long windowInputTokens) {}

  /**
   * Request counts.
   *
   * @param completed measured requests that succeeded
   * @param failed measured requests that failed
   * @param byPhase completed and failed per phase, every phase present
   * @param tpotUndefined completed measured requests with no TPOT (and no decode TPS): fewer than 2
   *     output tokens, or every token in one read; they are left out of those distributions
   */
  public record RequestCounts(
      long completed, long failed, Map<Phase, PhaseCounts> byPhase, long tpotUndefined) {
    public RequestCounts {
      byPhase = frozen(byPhase, Phase.class);
    }

    /** Counts with no request lacking a TPOT. */
    public RequestCounts(long completed, long failed, Map<Phase, PhaseCounts> byPhase) {
      this(completed, failed, byPhase, 0);
    }
  }

  /**
   * Why measured answers ended: completed requests and those a content policy stopped (other
   * failures have no answer to classify). docs/METRICS.md, "Finish reasons".
   *
   * @param byClass answers per {@link FinishClass}, every class present
   * @param withMaxTokens of them, answers whose request named a {@code max_tokens}
   * @param reachedMaxTokens of those, answers whose output count {@code n} reached it
   */
  public record Finishes(Map<FinishClass, Long> byClass, long withMaxTokens, long reachedMaxTokens) {
    /** No answer. */
    public static final Finishes NONE = new Finishes(Map.of(), 0, 0);

    public Finishes {
      EnumMap<FinishClass, Long> all = new EnumMap<>(FinishClass.class);
      for (FinishClass c : FinishClass.values()) {
        all.put(c, byClass.getOrDefault(c, 0L));
      }
      byClass = Collections.unmodifiableMap(all);
    }

    /** Answers classified: the sum over the classes. */
    public long answers() {
      return byClass.values().stream().mapToLong(Long::longValue).sum();
    }

    /** {@code reachedMaxTokens / withMaxTokens}, NaN when no answer named a limit. */
    public double reachedShare() {
      return withMaxTokens > 0 ? (double) reachedMaxTokens / withMaxTokens : Double.NaN;
    }
  }

  /** Completed and failed requests of one phase. */
  public record PhaseCounts(long completed, long failed) {}

  /**
   * Where measured requests' output token counts came from, and how far sources disagreed.
   *
   * @param outputSources measured requests per count source, every source present
   * @param usageChunkDisagreements measured requests whose {@code usage.completion_tokens} differs
   *     from their text-chunk count
   * @param promptOverhead {@code usage.prompt_tokens − client count} (the chat template)
   * @param usageVsTokenizer the server's output count against the client tokenizer's
   * @param outputWords words ({@code core.metrics.Words}) of the answers of successful measured
   *     requests without reasoning text
   * @param wordsOutputTokens output tokens {@code n} of the same requests
   */
  public record TokenAccounting(
      Map<TokenCountSource, Long> outputSources,
      long usageChunkDisagreements,
      PromptOverhead promptOverhead,
      UsageVsTokenizer usageVsTokenizer,
      long outputWords,
      long wordsOutputTokens) {
    public TokenAccounting {
      outputSources = frozen(outputSources, TokenCountSource.class);
      Objects.requireNonNull(promptOverhead, "promptOverhead");
      Objects.requireNonNull(usageVsTokenizer, "usageVsTokenizer");
    }

    /** {@code outputWords / wordsOutputTokens}, NaN when no token was counted. */
    public double wordsPerOutputToken() {
      return wordsOutputTokens > 0 ? (double) outputWords / wordsOutputTokens : Double.NaN;
    }
  }

  /**
   * {@code usage.prompt_tokens − client count} over measured requests that have both: the tokens
   * the server's chat template adds around the raw prompt, and, when the server counts with another
   * tokenizer than the client (or the client estimated), that difference too.
   *
   * @param count requests with both counts
   * @param estimatedCount of them, requests whose client count was an estimate, not the tokenizer's
   * @param meanTokens mean difference, NaN when {@code count} is 0
   * @param minTokens smallest difference, 0 when {@code count} is 0
   * @param maxTokens largest difference, 0 when {@code count} is 0
   * @param meanClientTokens mean client count of the same requests, NaN when {@code count} is 0
   */
  public record PromptOverhead(
      long count, long estimatedCount, double meanTokens, long minTokens, long maxTokens, double meanClientTokens) {

    /** A chat template adds at most this many tokens to a request (Llama 3.1's: about 30). */
    public static final int TEMPLATE_TOKENS = 64;

    /** Two counts closer than this share of the client's count are the same tokenizer's, or near. */
    public static final double TOLERANCE = 0.05;

    /** No requests with both counts. */
    public static PromptOverhead none() {
      return new PromptOverhead(0, 0, Double.NaN, 0, 0, Double.NaN);
    }

    /**
     * How many more prompt tokens the server counted than the client, as a share of the client's:
     * {@code meanTokens / meanClientTokens} (0.33: 33% more; template included); NaN when none.
     */
    public double relative() {
      return count > 0 && meanClientTokens > 0 ? meanTokens / meanClientTokens : Double.NaN;
    }

    /**
     * Whether the server counts prompts unlike the client, beyond what a chat template explains: on
     * average more than {@link #TEMPLATE_TOKENS} plus {@link #TOLERANCE} of the client's count
     * more, or {@link #TOLERANCE} of it fewer (a template only adds). Then the two sides count with
     * different tokenizers, or the client estimated.
     */
    public boolean countsDiffer() {
      return differ(meanTokens, meanClientTokens);
    }

    /** {@link #countsDiffer()} of a mean difference and mean client count (false when either is NaN). */
    public static boolean differ(double meanTokens, double meanClientTokens) {
      if (Double.isNaN(meanTokens) || !(meanClientTokens > 0)) {
        return false;
      }
      double slack = TOLERANCE * meanClientTokens;
      return meanTokens > TEMPLATE_TOKENS + slack || meanTokens < -slack;
    }
  }

  /**
   * The server's {@code usage.completion_tokens} against the client tokenizer's count of the
   * answer, over measured requests that have both. {@code diff = tokenizer − usage}.
   *
   * @param tokenizer the tokenizer's name, null when the run had none
   * @param compared requests with both counts
   * @param disagreements of them, requests where the counts differ
   * @param meanDiffTokens mean signed {@code diff} over the compared requests (a bias, e.g. an EOS
   *     token the server counts and the text lacks), NaN when none
   * @param meanAbsDiffTokens mean {@code |diff|} over the disagreeing requests, NaN when none
   * @param maxAbsDiffTokens largest {@code |diff|}, 0 when none
   * @param meanRelDiff mean {@code |diff| / usage} over the disagreeing requests with {@code usage
   *     > 0}, NaN when none
   * @param maxRelDiff largest {@code |diff| / usage}, NaN when none
   */
  public record UsageVsTokenizer(
      String tokenizer,
      long compared,
      long disagreements,
      double meanDiffTokens,
      double meanAbsDiffTokens,
      long maxAbsDiffTokens,
      double meanRelDiff,
      double maxRelDiff) {}
}
