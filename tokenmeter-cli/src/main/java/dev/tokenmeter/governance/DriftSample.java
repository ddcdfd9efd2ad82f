package dev.tokenmeter.governance;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A window of live traffic as drift compares it: completed requests' lengths, models and the
 * concurrency each met. Immutable.
 *
 * @param inputTokens prompt tokens per request (usage.prompt_tokens), requests without one left out
 * @param outputTokens output tokens per request, requests without a count left out
 * @param models requests per model ({@code "(none)"} for a request that named none)
 * @param meanInFlight mean over requests of the requests in flight to the same upstream when each
 *     started, itself included: the concurrency a request met, weighted by request (not by time);
 *     NaN when empty
 * @param requests completed requests in the window
 */
public record DriftSample(double[] inputTokens, double[] outputTokens, Map<String, Long> models, double meanInFlight,
    long requests) {

  /** The model name a request that named none is counted under. */
  public static final String NO_MODEL = "(none)";

  public DriftSample {
    models = Map.copyOf(models);
  }

  /**
   * One completed request of live traffic.
   *
   * @param atEpochMillis when it started
   * @param model its model, or null
   * @param inputTokens its prompt tokens, or -1 when unknown
   * @param outputTokens its output tokens, or -1 when unknown
   * @param inFlightAtStart requests in flight to the same upstream when it started, itself excluded
   */
  public record Request(long atEpochMillis, String model, int inputTokens, int outputTokens, int inFlightAtStart) {}

  /** The sample of {@code requests} (completed ones only). */
  public static DriftSample of(List<Request> requests) {
    double[] in = requests.stream().filter(r -> r.inputTokens() > 0).mapToDouble(Request::inputTokens).toArray();
    double[] out = requests.stream().filter(r -> r.outputTokens() >= 0).mapToDouble(Request::outputTokens).toArray();
    Map<String, Long> models = new HashMap<>();
    for (Request r : requests) {
      models.merge(r.model() == null ? NO_MODEL : r.model(), 1L, Long::sum);
    }
    double inFlight = requests.stream().mapToDouble(r -> r.inFlightAtStart() + 1.0).average().orElse(Double.NaN);
    return new DriftSample(in, out, models, inFlight, requests.size());
  }
}
