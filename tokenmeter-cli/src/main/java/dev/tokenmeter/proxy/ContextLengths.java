package dev.tokenmeter.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Each model's context length, in tokens: the bound on prompt plus output that a request with no
 * output limit is held to in a budget. Two sources: the settings ({@code context_lengths}, model
 * globs, first match wins) and what an upstream's {@code /v1/models} lists ({@code max_model_len}
 * as vLLM and the simulator say it, or {@code context_length}); the settings win. Thread-safe: the
 * event loop reads, a probe thread learns.
 */
final class ContextLengths {
  private static final ObjectMapper JSON = new ObjectMapper();

  private record Entry(Pattern glob, int tokens) {}

  private final List<Entry> configured = new ArrayList<>();
  private final ConcurrentHashMap<String, Integer> learned = new ConcurrentHashMap<>();

  /** @param byGlob tokens by model glob, in the order they are tried */
  ContextLengths(Map<String, Integer> byGlob) {
    byGlob.forEach((glob, tokens) -> configured.add(new Entry(Routing.globPattern(glob), tokens)));
  }

  /** The context length of {@code modelOrNull} in tokens, or -1 when unknown. */
  long of(String modelOrNull) {
    if (modelOrNull == null) {
      return -1;
    }
    for (Entry e : configured) {
      if (e.glob().matcher(modelOrNull).matches()) {
        return e.tokens();
      }
    }
    Integer l = learned.get(modelOrNull);
    return l == null ? -1 : l;
  }

  /**
   * Learns the context lengths a {@code /v1/models} body lists; two upstreams serving one model
   * with different lengths keep the larger (the worst case). Returns how many models had one.
   */
  int learn(String modelsJson) {
    JsonNode data;
    try {
      data = JSON.readTree(modelsJson).path("data");
    } catch (java.io.IOException notJson) {
      return 0;
    }
    int n = 0;
    for (JsonNode card : data) {
      JsonNode len = card.hasNonNull("max_model_len") ? card.get("max_model_len") : card.get("context_length");
      String id = card.path("id").asText(null);
      if (id != null && len != null && len.canConvertToInt() && len.asInt() > 0) {
        learned.merge(id, len.asInt(), Math::max);
        n++;
      }
    }
    return n;
  }

  /**
   * The output tokens a budget holds for a request.
   *
   * @param namedMax the output limit the request names (its route's reading, answers included), or
   *     -1 for none
   * @param answers the answers it asks for ({@code n}, {@code best_of}, ...)
   * @param promptTokens the prompt's estimate, the one the hold reserves for input
   * @param contextOrMinus1 the model's context length, or -1 when unknown
   * @param defaultOutput {@code budget_default_output_tokens}, per answer
   */
  static long outputHold(long namedMax, long answers, long promptTokens, long contextOrMinus1, int defaultOutput) {
    if (namedMax >= 0) {
      return namedMax;
    }
    // the context bounds prompt + output: with one answer the hold is the context itself, whatever the
    // estimate's error; not capped by the default, which would let a long answer pass an enforced limit
    long perAnswer = contextOrMinus1 < 0 ? defaultOutput : Math.max(0, contextOrMinus1 - promptTokens);
    return perAnswer * answers;
  }
}
