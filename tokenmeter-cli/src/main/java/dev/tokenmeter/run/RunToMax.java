package dev.tokenmeter.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Whether a run's extra body asks every answer to run to its max_tokens. Stateless. */
final class RunToMax {
  private static final ObjectMapper JSON = new ObjectMapper();

  private RunToMax() {}

  /** {@code "ignore_eos"} when the extra body sets {@code ignore_eos: true}, else null. */
  static String asked(String extraBodyJsonOrNull) {
    if (extraBodyJsonOrNull == null || extraBodyJsonOrNull.isBlank()) {
      return null;
    }
    JsonNode body;
    try {
      body = JSON.readTree(extraBodyJsonOrNull);
    } catch (java.io.IOException e) {
      return null; // checked when the endpoint was built; nothing to say here
    }
    return body.path("ignore_eos").asBoolean(false) ? "ignore_eos" : null;
  }
}
