package dev.tokenmeter.proxy.dashboard;

import java.util.List;
import java.util.Map;

/**
 * What the dashboard shows at one moment, for one window: the JSON feed's content (snake_case field
 * names, {@code null} for a figure with no data). Immutable. docs/PROXY.md, "Dashboard", defines
 * every figure.
 *
 * @param nowEpochMs when it was taken
 * @param windowSeconds the window's length
 * @param windowStartEpochMs the window's start: requests that started at or after it count
 * @param startedEpochMs when the proxy (the board) started
 * @param rates tokens in and out
 * @param requests how many requests ended in the window, and whether the board still holds all
 * @param ttftMs TTFT of the window's completed requests, ms
 * @param decodeTps per-user decode TPS of the window's completed requests, tokens/s
 * @param errorsByClass the window's failed requests by error class wire name, sorted
 * @param upstreams each upstream, in the configuration's order
 * @param tenants each tenant seen in the window or holding a budget, sorted by name
 * @param slo the place for SLO status (filled by the live SLO evaluation, when configured)
 * @param ledger whether the ledger commits, as the proxy's watch last saw it
 */
public record BoardView(
    long nowEpochMs,
    long windowSeconds,
    long windowStartEpochMs,
    long startedEpochMs,
    Rates rates,
    Requests requests,
    Latency ttftMs,
    Speed decodeTps,
    Map<String, Long> errorsByClass,
    List<UpstreamView> upstreams,
    List<TenantView> tenants,
    Slo slo,
    Ledger ledger) {

  /**
   * Tokens in and out: the window's totals and rates, and the two charts' series.
   *
   * @param inputTokens prompt tokens sent upstream in the window (rounded)
   * @param outputTokens output tokens that arrived in the window (rounded)
   * @param inputTps {@code inputTokens / windowSeconds}
   * @param outputTps {@code outputTokens / windowSeconds}
   * @param seconds per second, the window's last 15 minutes at most
   * @param minutes per minute, since the board started, the last 24 hours at most
   */
  public record Rates(
      long inputTokens, long outputTokens, double inputTps, double outputTps, Series seconds, Series minutes) {}

  /**
   * Tokens per second in equal steps, oldest first.
   *
   * @param startEpochMs the first step's start
   * @param stepMs each step's length
   * @param input prompt tokens per second in each step
   * @param output output tokens per second in each step
   */
  public record Series(long startEpochMs, long stepMs, double[] input, double[] output) {}

  /**
   * @param count requests that started in the window and ended
   * @param errors those that failed
   * @param coveredFromEpochMs the earliest start the board still holds every request from
   * @param truncated true when the window reaches back before {@code coveredFromEpochMs}: its
   *     per-request figures then cover the requests from there on only
   */
  public record Requests(long count, long errors, long coveredFromEpochMs, boolean truncated) {}

  /** A latency distribution's count, median and 99th percentile, ms; null without data. */
  public record Latency(long count, Double p50, Double p99) {}

  /**
   * Per-user decode TPS against the fluid line.
   *
   * @param count completed requests with a TPOT
   * @param p50 the median, tokens/s, null without data
   * @param p10 the 10th percentile (the slow tail), tokens/s, null without data
   * @param fluidTps the fluid line, tokens/s
   * @param belowFluid requests whose decode TPS was below the fluid line
   */
  public record Speed(long count, Double p50, Double p10, double fluidTps, long belowFluid) {}

  /**
   * One upstream.
   *
   * @param inFlight requests routed to it whose exchange has not ended, now (its queue depth)
   * @param requests its requests that started in the window and ended
   * @param errors those that failed
   * @param warmUp its warm-up status, since the board started
   */
  public record UpstreamView(String name, int inFlight, long requests, long errors, WarmUpView warmUp) {}

  /**
   * @param state {@code idle} (no request yet), {@code warming} (no healthy token yet), {@code
   *     warm} (a healthy token, TPS not steady yet) or {@code steady}
   * @param firstRequestEpochMs when its first request started, or null
   * @param firstHealthyTokenEpochMs when the first token of its first completed request arrived, or
   *     null
   * @param warmUpMs the time between the two, or null
   * @param minuteMedians median decode TPS of each of its last complete minutes, oldest first (null
   *     for a minute with too few requests)
   * @param detail one sentence on why it is or is not steady
   */
  public record WarmUpView(
      String state,
      Long firstRequestEpochMs,
      Long firstHealthyTokenEpochMs,
      Long warmUpMs,
      List<Double> minuteMedians,
      String detail) {}

  /**
   * One tenant.
   *
   * @param requests its requests that started in the window and ended
   * @param inputTokens their known prompt tokens
   * @param outputTokens their known output tokens
   * @param spend their summed cost by currency, sorted
   * @param budgets its budgets, in their current period (not the window)
   */
  public record TenantView(
      String name, long requests, long inputTokens, long outputTokens, Map<String, Double> spend,
      List<BudgetView> budgets) {}

  /**
   * One budget's use in its current period.
   *
   * @param describe {@code 2000000 tokens per day}
   * @param unit {@code tokens} or the currency
   * @param spent settled use so far
   * @param reserved held by requests in flight
   * @param ratio {@code spent / limit}
   */
  public record BudgetView(
      String describe, String unit, String period, boolean enforce, double limit, double spent, double reserved,
      double ratio) {}

  /**
   * The SLO status place: {@code configured} false and no rows until live SLOs are configured.
   *
   * @param objectives one row per objective and scope
   */
  public record Slo(boolean configured, List<SloRow> objectives) {}

  /**
   * The ledger's health, as the proxy's watch saw it at its last look (every 2 s).
   *
   * @param state {@code none} (no ledger), {@code ok}, or {@code failing}: a commit failed and none
   *     has succeeded since
   * @param failingForSeconds how long it has been failing, or null when it is not
   * @param failedCommits commits that failed since the proxy started (each is retried)
   * @param droppedRecords records the ledger could not keep since the proxy started
   * @param droppedThisOutage of those, the ones dropped since this outage began; 0 when not failing
   * @param lastError the last failed commit's error while failing, else null
   */
  public record Ledger(String state, Long failingForSeconds, long failedCommits, long droppedRecords,
      long droppedThisOutage, String lastError) {
    /** No ledger configured. */
    public static final Ledger NONE = new Ledger("none", null, 0, 0, 0, null);
  }
}
