package dev.tokenmeter.core.analysis;

import java.util.Objects;

/**
 * What a stage's measured speed costs: per request, per 1M output tokens, per conversation and
 * per month at a given traffic, under token pricing (a provider's price list) and/or GPU pricing
 * (renting the GPUs that serve the endpoint). Pure functions, thread-safe; definitions in {@code
 * docs/METRICS.md}, "Cost".
 *
 * <p>Token pricing: {@code perRequest = meanInputTokens · priceIn / 1e6 + meanOutputTokens ·
 * priceOut / 1e6}, the means over the stage's successful measured requests. GPU pricing is cost at
 * the measured throughput: {@code perRequest = gpus · gpuCostPerHour / 3600 / requestsPerSecond},
 * {@code per1MOutputTokens = gpus · gpuCostPerHour / 3600 / outputTokensPerSecond · 1e6}. The
 * monthly projection is {@value #DAYS_PER_MONTH} days of {@code trafficRequestsPerDay}, spread
 * evenly (no peaks): token pricing multiplies the request cost; GPU pricing rents {@code ceil(traffic
 * rate / measured request rate)} whole deployments of {@code gpus} GPUs around the clock.
 */
public final class Cost {
  /** Days in the monthly projection. */
  public static final int DAYS_PER_MONTH = 30;

  private static final double SECONDS_PER_HOUR = 3600;
  private static final double SECONDS_PER_DAY = 86_400;

  private Cost() {}

  /**
   * The prices and traffic a run is costed with. NaN marks what was not given.
   *
   * @param currency what prices are in ({@code "USD"}), shown beside every figure
   * @param priceInPerMillion price of 1M input (prompt) tokens; NaN without token pricing
   * @param priceOutPerMillion price of 1M output tokens; NaN without token pricing
   * @param gpuCostPerHour price of one GPU-hour; NaN without GPU pricing
   * @param gpus GPUs serving the endpoint (one deployment), ≥ 1
   * @param trafficRequestsPerDay traffic of the monthly projection; NaN for none
   * @param turnsPerConversation requests per conversation, ≥ 1
   */
  public record Model(
      String currency,
      double priceInPerMillion,
      double priceOutPerMillion,
      double gpuCostPerHour,
      int gpus,
      double trafficRequestsPerDay,
      int turnsPerConversation) {
    public Model {
      Objects.requireNonNull(currency, "currency");
      if (gpus < 1 || turnsPerConversation < 1) {
        throw new IllegalArgumentException("gpus and turns must be at least 1");
      }
      if (!tokenPricing(priceInPerMillion, priceOutPerMillion) && !(gpuCostPerHour >= 0)) {
        throw new IllegalArgumentException("give token prices or a GPU cost");
      }
    }

    /** True when token prices were given. */
    public boolean tokenPricing() {
      return tokenPricing(priceInPerMillion, priceOutPerMillion);
    }

    /** True when a GPU-hour price was given. */
    public boolean gpuPricing() {
      return gpuCostPerHour >= 0;
    }

    private static boolean tokenPricing(double in, double out) {
      return in >= 0 && out >= 0;
    }
  }

  /**
   * One stage's cost under one pricing. NaN where undefined (no request completed, no traffic).
   *
   * @param perRequest cost of one request
   * @param perMillionOutputTokens cost of 1M output tokens (input tokens' cost included)
   * @param perConversation {@code perRequest · turns}, or as the stage's sessions went ({@link #of})
   * @param perMonth cost of {@value #DAYS_PER_MONTH} days of the traffic
   * @param deployments GPU pricing: deployments the traffic needs at this stage's measured request
   *     rate; 0 under token pricing or without traffic
   */
  public record Figures(
      double perRequest,
      double perMillionOutputTokens,
      double perConversation,
      double perMonth,
      long deployments) {}

  /**
   * A stage's cost.
   *
   * @param tokens under token pricing, null without it
   * @param gpu under GPU pricing, null without it
   * @param sessionTurns the mean turns of the stage's ended sessions when its per-conversation
   *     figures follow them ({@code bench --turns}), else NaN
   */
  public record StageCost(Figures tokens, Figures gpu, double sessionTurns) {
    /** A stage whose conversation is {@link Model#turnsPerConversation()} requests. */
    public StageCost(Figures tokens, Figures gpu) {
      this(tokens, gpu, Double.NaN);
    }

    /** Whether the per-conversation figures follow the stage's measured sessions. */
    public boolean fromSessions() {
      return !Double.isNaN(sessionTurns);
    }
  }

  /**
   * Costs stage {@code r} under {@code m}. A stage of real conversations ({@code bench --turns})
   * whose sessions ended costs a conversation as its sessions went: token pricing at the mean
   * prompt and output tokens per ended session, GPU pricing at the cost per request times the mean
   * turns per ended session; otherwise a conversation is {@code turnsPerConversation} requests.
   */
  public static StageCost of(Model m, StageResult r) {
    Figures tokens = m.tokenPricing()
        ? tokens(m, r.metric(Metric.INPUT_TOKENS).mean(), r.metric(Metric.OUTPUT_TOKENS).mean())
        : null;
    Figures gpu = m.gpuPricing()
        ? gpu(m, r.throughput().requestsPerSecond(), r.throughput().outputTokensPerSecond())
        : null;
    Sessions s = r.sessions();
    double sessionTurns = Double.NaN;
    if (s != null && s.ended() > 0) {
      sessionTurns = s.turns().getMean();
      if (tokens != null) {
        double perConversation = (s.inputTokens().getMean() * m.priceInPerMillion()
            + s.outputTokens().getMean() * m.priceOutPerMillion()) / 1e6;
        tokens = withPerConversation(tokens, perConversation);
      }
      if (gpu != null) {
        gpu = withPerConversation(gpu, gpu.perRequest() * s.turns().getMean());
      }
    }
    return new StageCost(tokens, gpu, sessionTurns);
  }

  private static Figures withPerConversation(Figures f, double perConversation) {
    return new Figures(f.perRequest(), f.perMillionOutputTokens(), perConversation, f.perMonth(), f.deployments());
  }

  /** Token pricing for requests of these mean lengths. */
  public static Figures tokens(Model m, double meanInputTokens, double meanOutputTokens) {
    double perRequest =
        (meanInputTokens * m.priceInPerMillion() + meanOutputTokens * m.priceOutPerMillion()) / 1e6;
    double perMillionOut = meanOutputTokens > 0 ? perRequest / meanOutputTokens * 1e6 : Double.NaN;
    return new Figures(
        perRequest,
        perMillionOut,
        perRequest * m.turnsPerConversation(),
        perRequest * m.trafficRequestsPerDay() * DAYS_PER_MONTH,
        0);
  }

  /** GPU pricing at these measured rates. */
  public static Figures gpu(Model m, double requestsPerSecond, double outputTokensPerSecond) {
    double perSecond = m.gpus() * m.gpuCostPerHour() / SECONDS_PER_HOUR;
    double perRequest = requestsPerSecond > 0 ? perSecond / requestsPerSecond : Double.NaN;
    double perMillionOut = outputTokensPerSecond > 0 ? perSecond / outputTokensPerSecond * 1e6 : Double.NaN;
    long deployments = 0;
    double perMonth = Double.NaN;
    if (m.trafficRequestsPerDay() >= 0 && requestsPerSecond > 0) {
      // 1e-9 of slack: 2.0000000001 deployments from rounding is 2, not 3.
      deployments = (long) Math.ceil(m.trafficRequestsPerDay() / SECONDS_PER_DAY / requestsPerSecond - 1e-9);
      perMonth = deployments * perSecond * SECONDS_PER_DAY * DAYS_PER_MONTH;
    }
    return new Figures(perRequest, perMillionOut, perRequest * m.turnsPerConversation(), perMonth, deployments);
  }
}
