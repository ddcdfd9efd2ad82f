package dev.tokenmeter.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The conversations of an observed workload: how many turns a conversation has, how long its user
 * thinks between an answer and the next question, and how much of each turn's prompt the server
 * served from its prefix cache. Part of {@link WorkloadProfile} (the {@code conversations} object
 * of the profile file, docs/PROXY.md "Exporting the workload"). Immutable.
 *
 * <p>A conversation is the completed requests that carry one conversation key (the ledger's {@code
 * conversation} column), in order of start. Conversations cut by the window's edges count with the
 * turns inside it, so turn counts are a lower bound near the edges.
 *
 * @param conversations distinct keys with at least one completed request
 * @param keyedShare completed requests with a key over all completed requests
 * @param turns completed requests per conversation, 101 quantiles (p0..p100)
 * @param thinkTimeMillis gaps from the end of an answer to the start of the same conversation's
 *     next request, milliseconds, 101 quantiles; empty when no conversation had two turns (overlapping
 *     turns, a request sent before the previous answer ended, are left out)
 * @param cachedShareByTurn cached prompt tokens over prompt tokens at turn 1, 2, ..., {@link
 *     #TURN_CAP}, then every later turn together (the last entry), among requests whose server
 *     reported cached tokens; NaN where none did
 * @param messageTokensOrNull the tokens each turn added to its conversation's prompt, 101
 *     quantiles: turn 1's whole prompt, a later turn's prompt less the previous turn's prompt and
 *     answer (at least 1); a session benchmark's new user message ({@code --input-tokens}). Null
 *     in a profile written before the field existed
 */
public record ConversationProfile(
    long conversations,
    double keyedShare,
    LengthSpec.Empirical turns,
    List<Integer> thinkTimeMillis,
    double[] cachedShareByTurn,
    LengthSpec.Empirical messageTokensOrNull) {

  /** Turns reported one by one; later ones together. */
  public static final int TURN_CAP = 8;

  public ConversationProfile {
    thinkTimeMillis = List.copyOf(thinkTimeMillis);
  }

  /** The profile's {@code conversations} object. */
  void write(ObjectNode c) {
    c.put("count", conversations);
    c.put("keyed_share", keyedShare);
    ObjectNode t = c.putObject("turns");
    t.put("mean", turns.mean());
    turns.quantiles().forEach(t.putArray("quantiles")::add);
    ObjectNode think = c.putObject("think_time_ms");
    if (thinkTimeMillis.isEmpty()) {
      think.putNull("mean");
    } else {
      think.put("mean", thinkTimeMillis.stream().mapToInt(Integer::intValue).average().orElse(0));
    }
    thinkTimeMillis.forEach(think.putArray("quantiles")::add);
    if (messageTokensOrNull != null) {
      ObjectNode m = c.putObject("message_tokens");
      m.put("mean", messageTokensOrNull.mean());
      messageTokensOrNull.quantiles().forEach(m.putArray("quantiles")::add);
    }
    ArrayNode byTurn = c.putArray("cached_share_by_turn");
    for (int i = 0; i < cachedShareByTurn.length; i++) {
      ObjectNode e = byTurn.addObject();
      e.put("turn", i < TURN_CAP ? Integer.toString(i + 1) : "later");
      if (Double.isNaN(cachedShareByTurn[i])) {
        e.putNull("cached_share");
      } else {
        e.put("cached_share", cachedShareByTurn[i]);
      }
    }
  }

  /** Reads the {@code conversations} object; null when the profile has none. */
  static ConversationProfile read(JsonNode c) {
    if (c == null || !c.isObject()) {
      return null;
    }
    List<Integer> turns = ints(c.path("turns").path("quantiles"), "conversations.turns");
    List<Integer> think = ints(c.path("think_time_ms").path("quantiles"), "conversations.think_time_ms");
    double[] byTurn = new double[TURN_CAP + 1];
    JsonNode b = c.path("cached_share_by_turn");
    for (int i = 0; i < byTurn.length; i++) {
      JsonNode v = b.path(i).path("cached_share");
      byTurn[i] = v.isNumber() ? v.asDouble() : Double.NaN;
    }
    LengthSpec.Empirical message = null;
    if (c.has("message_tokens")) {
      message = new LengthSpec.Empirical(ints(c.path("message_tokens").path("quantiles"), "conversations.message_tokens"));
    }
    return new ConversationProfile(c.path("count").asLong(), c.path("keyed_share").asDouble(Double.NaN),
        new LengthSpec.Empirical(turns), think, byTurn, message);
  }

  private static List<Integer> ints(JsonNode array, String field) {
    List<Integer> out = new ArrayList<>();
    for (JsonNode v : array) {
      if (!v.isIntegralNumber() || !v.canConvertToInt()) {
        throw new IllegalArgumentException(field + ".quantiles holds '" + v + "', not a whole number");
      }
      out.add(v.asInt());
    }
    return out;
  }

  /** Collects requests in order of start and makes the profile. Not thread-safe. */
  static final class Builder {
    private static final class Open {
      int turns;
      long lastEndMillis = -1;
      int lastInput;
      int lastOutput;
    }

    private final Map<String, Open> open = new HashMap<>();
    private final List<Integer> gaps = new ArrayList<>();
    private final List<Integer> messages = new ArrayList<>();
    private final long[] cached = new long[TURN_CAP + 1];
    private final long[] cachedOf = new long[TURN_CAP + 1];
    private long completed;
    private long keyed;

    /**
     * Adds one completed request (call in order of start).
     *
     * @param conversationOrNull its key, or null
     * @param endedAtEpochMillis when its answer ended, or -1 when unknown
     * @param cachedTokens cached prompt tokens the server reported, or -1 when it reported none
     */
    void add(String conversationOrNull, long startedAtEpochMillis, long endedAtEpochMillis, int inputTokens,
        int outputTokens, int cachedTokens) {
      completed++;
      if (conversationOrNull == null) {
        return;
      }
      keyed++;
      Open c = open.computeIfAbsent(conversationOrNull, k -> new Open());
      c.turns++;
      if (c.lastEndMillis >= 0 && startedAtEpochMillis >= c.lastEndMillis) {
        gaps.add((int) Math.min(Integer.MAX_VALUE - 1, startedAtEpochMillis - c.lastEndMillis));
      }
      c.lastEndMillis = endedAtEpochMillis;
      messages.add(c.turns == 1 ? Math.max(1, inputTokens)
          : (int) Math.max(1, (long) inputTokens - c.lastInput - c.lastOutput));
      c.lastInput = inputTokens;
      c.lastOutput = outputTokens;
      int slot = Math.min(c.turns, TURN_CAP + 1) - 1;
      if (cachedTokens >= 0 && inputTokens > 0) {
        cached[slot] += cachedTokens;
        cachedOf[slot] += inputTokens;
      }
    }

    /** The profile; null when no request carried a key. */
    ConversationProfile build() {
      if (open.isEmpty()) {
        return null;
      }
      List<Integer> turns = new ArrayList<>(open.size());
      open.values().forEach(c -> turns.add(c.turns));
      List<Integer> think = new ArrayList<>();
      if (!gaps.isEmpty()) {
        WorkloadProfile.Builder.quantiles(gaps.stream().map(g -> g + 1).toList()).quantiles()
            .forEach(q -> think.add(q - 1)); // shifted by one: quantiles() takes values >= 1
      }
      double[] byTurn = new double[TURN_CAP + 1];
      for (int i = 0; i < byTurn.length; i++) {
        byTurn[i] = cachedOf[i] == 0 ? Double.NaN : cached[i] / (double) cachedOf[i];
      }
      return new ConversationProfile(open.size(), keyed / (double) completed,
          WorkloadProfile.Builder.quantiles(turns), think, byTurn, WorkloadProfile.Builder.quantiles(messages));
    }
  }
}
