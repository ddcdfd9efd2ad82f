package dev.tokenmeter.governance;

import java.util.Map;

/**
 * One SLO's state now, for a dashboard: immutable snapshot.
 *
 * @param slo the name ({@code ttft.p99<=800ms tenant=acme})
 * @param objective the objective in canonical form ({@code ttft.p99 <= 800 ms})
 * @param scope which requests it judges ({@code all traffic}, {@code model=llama* tenant=acme})
 * @param budget the error budget, a share of requests
 * @param sli the SLI (good / counted) over each window label ({@code 5m} ... {@code 3d}); NaN when
 *     no request was counted in it
 * @param requests requests counted over each window label
 * @param burnRates the burn rate over each window label ((1 - SLI) / budget; NaN when no request)
 * @param state the most severe alert firing
 */
public record SloStatus(String slo, String objective, String scope, double budget, Map<String, Double> sli,
    Map<String, Long> requests, Map<String, Double> burnRates, State state) {
  /** ok, or the most severe alert firing. */
  public enum State { OK, TICKET, PAGE }

  public SloStatus {
    sli = ordered(sli);
    requests = ordered(requests);
    burnRates = ordered(burnRates);
  }

  private static <V> Map<String, V> ordered(Map<String, V> m) {
    return java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(m));
  }
}
