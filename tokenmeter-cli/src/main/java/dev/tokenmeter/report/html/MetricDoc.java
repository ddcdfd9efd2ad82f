package dev.tokenmeter.report.html;

import dev.tokenmeter.core.analysis.ComparedQuantity;

/**
 * The metrics report.html names, each with its unit, a one-line definition and the section of
 * {@code docs/METRICS.md} that defines it exactly ({@link #anchor()}: the GitHub-style anchor of
 * the section's heading; a test checks every one against the file's headings).
 */
enum MetricDoc {
  OUTPUT_TPS("Output tokens/s", "tokens/s", Section.PER_STAGE,
      "aggregate: output tokens of every request whose chunk arrived inside the measurement window, divided by the window length"),
  DECODE_TPS("Per-user TPS", "tokens/s", Section.PER_REQUEST,
      "per-request decode speed 1 / TPOT: the tokens per second one user sees once the first token arrived; p50 is the typical user, p10 the slowest tenth"),
  TTFT("TTFT", "ms", Section.PER_REQUEST,
      "time to first token, the user's wait: firstToken − scheduled in an open loop (queueing for a"
          + " --max-concurrency slot included), firstToken − sent in a closed loop"),
  TTFT_FROM_SENT("TTFT from send", "ms", Section.PER_REQUEST,
      "firstToken − sent: the server's part, without the wait between schedule and send"),
  TPOT("TPOT", "ms", Section.PER_REQUEST,
      "time per output token after the first: (lastToken − firstToken) / (n − 1), for n ≥ 2 and tokens"
          + " in more than one read"),
  TPOT_UNDEFINED("No TPOT", "requests", Section.PER_REQUEST,
      "completed measured requests with no TPOT or per-user TPS: one output token, or every token in one"
          + " read (one chunk, or a non-streamed answer); left out of those distributions, never counted as 0"),
  ITL("ITL per token", "ms", Section.PER_REQUEST,
      "inter-token latency per token: each gap between chunks split evenly over the chunk's tokens, over"
          + " all tokens of all requests"),
  ITL_CHUNK("ITL per chunk", "ms", Section.PER_REQUEST,
      "every gap between consecutive chunks, one value per gap whatever the tokens it carries (vLLM's ITL)"),
  E2E("E2E", "ms", Section.PER_REQUEST,
      "end-to-end latency: done − scheduled in an open loop, done − sent in a closed loop"),
  E2E_FROM_SENT("E2E from send", "ms", Section.PER_REQUEST, "done − sent"),
  REQUESTS_PER_S("Requests/s", "requests/s", Section.PER_STAGE,
      "completed measured requests / window length"),
  ACHIEVED_CONCURRENCY("Achieved concurrency", "requests", Section.PER_STAGE,
      "time-weighted mean of requests in flight over the window"),
  IN_FLIGHT("In flight", "requests", Section.PER_STAGE,
      "requests sent and not yet ended, mean over each second"),
  COMPLETED("Completed", "requests", Section.PER_STAGE, "measured requests that completed normally"),
  FAILED("Failed", "requests", Section.ERRORS, "measured requests that failed, by error class"),
  STEADY_STATE("Steady state", "", Section.STEADY_STATE,
      "whether the window's thirds kept output tokens/s within ±10% and mean TTFT within ±25% (or 5 ms)"),
  INPUT_TOKENS("Input tokens", "tokens", Section.PER_REQUEST,
      "prompt tokens per request: usage.prompt_tokens, else the client's count"),
  OUTPUT_TOKENS("Output tokens", "tokens", Section.PER_REQUEST,
      "output tokens n per request: usage.completion_tokens, else the tokenizer's count, else chunks"),
  LOOP_LAG("Event-loop lag p99", "ms", Section.CLIENT_HEALTH,
      "how late the client's event loops (each one probed) ran a task versus when it was due; above 5 ms the client is the bottleneck"),
  SEND_LAG("Send lag p99", "ms", Section.CLIENT_HEALTH,
      "how late the client began requests versus their schedule (open loop); above 10 ms the client is the bottleneck"),
  CLIENT_CPU("Client CPU", "% of one core", Section.CLIENT_HEALTH,
      "CPU time of the tokenmeter process over the window, as a share of one core"),
  LOOP_CPU("Event-loop CPU", "% of one core", Section.CLIENT_HEALTH,
      "CPU time of the event-loop thread (the busiest one when the client runs several, --event-loops); above 90% the client is the bottleneck"),
  TOKENS_PER_CPU_S("Tokens per CPU-second", "tokens/CPU-s", Section.CLIENT_HEALTH,
      "output tokens received per CPU-second the client spent"),
  ERROR_RATE("Error rate", "%", Section.COMPARING,
      "failed / (completed + failed) measured requests, in percent"),
  REPEAT_MEAN("Mean ± half-width", "", Section.REPEATS,
      "over the n repeats of a planned stage: the mean m of the stage's values and the half-width"
          + " t(1 − α/2, n − 1) · s / √n of the confidence interval of that mean (s: sample standard deviation)"),
  REPEAT_CV("CV", "%", Section.REPEATS, "coefficient of variation over the repeats: s / |m|"),
  COST_PER_REQUEST("Per request", "", Section.COST,
      "token pricing: mean input tokens · price in / 1e6 + mean output tokens · price out / 1e6;"
          + " GPU pricing: GPUs · price per GPU-hour / 3600 / requests per second"),
  COST_PER_1M_OUTPUT("Per 1M output tokens", "", Section.COST,
      "token pricing: per request / mean output tokens · 1e6 (input included);"
          + " GPU pricing: GPUs · price per GPU-hour / 3600 / output tokens per second · 1e6"),
  COST_PER_CONVERSATION("Per conversation", "", Section.COST, "per request · the turns of a conversation"),
  COST_PER_MONTH("Per month", "", Section.COST,
      "30 days of the traffic given: token pricing per request · requests; GPU pricing the deployments"
          + " needed, rented around the clock"),
  DEPLOYMENTS("Deployments", "", Section.COST,
      "GPU pricing: ceil(traffic per second / the stage's requests per second) deployments of the GPUs given"),
  SIGNIFICANCE("Verdict", "", Section.COMPARING,
      "significant when the Holm-adjusted p-value is below α; then better or worse in the row's own sense,"
          + " or negligible when the change is under --min-change of A's value");

  private final String label;
  private final String unit;
  private final Section section;
  private final String definition;

  MetricDoc(String label, String unit, Section section, String definition) {
    this.label = label;
    this.unit = unit;
    this.section = section;
    this.definition = definition;
  }

  String label() {
    return label;
  }

  /** Unit shown in column headers; empty for a verdict. */
  String unit() {
    return unit;
  }

  String definition() {
    return definition;
  }

  /** The definition a compared quantity (and a repeats headline metric of the same name) links to. */
  static MetricDoc of(ComparedQuantity q) {
    return switch (q) {
      case TTFT_P50, TTFT_P99 -> TTFT;
      case TPOT_P50, TPOT_P99 -> TPOT;
      case ITL_P50, ITL_P99 -> ITL;
      case E2E_P50, E2E_P99 -> E2E;
      case DECODE_TPS_P50, DECODE_TPS_P10 -> DECODE_TPS;
      case OUTPUT_TPS -> OUTPUT_TPS;
      case REQUEST_RATE -> REQUESTS_PER_S;
      case ERROR_RATE -> ERROR_RATE;
    };
  }

  /** Id of this metric's entry in the page's definitions list. */
  String id() {
    return "def-" + name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }

  /** GitHub-style anchor of the METRICS.md heading that defines it. */
  String anchor() {
    return section.anchor;
  }

  Section section() {
    return section;
  }

  /** Title of that heading, for the link text. */
  String sectionTitle() {
    return section.title;
  }

  /** The METRICS.md sections report.html links to. */
  enum Section {
    PER_REQUEST("per-request-requestmetrics", "Per request"),
    PER_STAGE("per-stage-stagerecorder-stageresult", "Per stage"),
    STEADY_STATE("steady-state", "Steady state"),
    CLIENT_HEALTH("client-health", "Client health"),
    ERRORS("error-classes", "Error classes"),
    COMPARING("comparing-runs-tokenmeter-compare", "Comparing runs"),
    REPEATS("repeats---repeat-n-repeats", "Repeats"),
    COST("cost---price-in--price-out---gpu-cost-cost", "Cost");

    final String anchor;
    final String title;

    Section(String anchor, String title) {
      this.anchor = anchor;
      this.title = title;
    }
  }
}
