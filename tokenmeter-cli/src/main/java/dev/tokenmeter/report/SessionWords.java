package dev.tokenmeter.report;

import dev.tokenmeter.core.analysis.Sessions;
import java.util.List;
import java.util.Locale;

/**
 * A stage's conversations in one sentence, for summary.json's {@code sessions.in_words}, the
 * terminal and the HTML report: "TTFT p50 grows from 180 ms at turn 1 to 620 ms at turn 8 as the
 * context reaches 6,000 tokens; 91% of later turns' prompt tokens were served from the prefix
 * cache." Pure.
 */
public final class SessionWords {
  /** A change under this factor either way reads as "stays about the same". */
  private static final double SAME = 1.1;

  private SessionWords() {}

  /** The sentence for {@code s}; says so when no measured turn succeeded. */
  public static String of(Sessions s) {
    List<Sessions.ByTurn> turns = s.byTurn().stream().filter(t -> t.ttft().getTotalCount() > 0).toList();
    String ends = ends(s);
    if (turns.isEmpty()) {
      return "No measured turn succeeded." + ends;
    }
    Sessions.ByTurn first = turns.get(0);
    Sessions.ByTurn last = turns.get(turns.size() - 1);
    double a = first.ttft().getValueAtPercentile(50) / 1e6;
    double b = last.ttft().getValueAtPercentile(50) / 1e6;
    StringBuilder out = new StringBuilder();
    if (first == last) {
      out.append(String.format(Locale.ROOT, "TTFT p50 is %s ms at %s (every measured turn)", ms(a), at(first)));
    } else {
      String verb = b > a * SAME ? "grows" : b < a / SAME ? "falls" : "stays about the same";
      out.append(String.format(Locale.ROOT, "TTFT p50 %s from %s ms at %s to %s ms at %s as the context reaches %,d tokens",
          verb, ms(a), at(first), ms(b), at(last), Math.round(last.promptTokens().getMean())));
    }
    long prompt = 0;
    long cached = 0;
    for (Sessions.ByTurn t : turns) {
      if (t.firstTurn() > 1) {
        prompt += t.promptTokensReportingCache();
        cached += t.cachedTokens();
      }
    }
    if (prompt > 0) {
      out.append(String.format(Locale.ROOT, "; %d%% of later turns' prompt tokens were served from the prefix cache",
          Math.round(100.0 * cached / prompt)));
    } else if (turns.size() > 1) {
      out.append("; the server reported no cached prompt tokens");
    }
    return out.append('.').append(agent(s)).append(ends).toString();
  }

  /** Agent loops: how many steps were tool calls and how many results went back; empty otherwise. */
  private static String agent(Sessions s) {
    Sessions.Agent a = s.agent();
    if (a == null) {
      return "";
    }
    String parallel = a.calls() > a.toolCalls()
        ? String.format(Locale.ROOT, " (%,d calls in all, some answers calling several tools at once)", a.calls())
        : "";
    return String.format(Locale.ROOT, " %,d of %,d agent steps (%d%%) were tool calls%s; %,d tool results were sent.",
        a.toolCalls(), a.steps(), Math.round(100 * a.toolCallShare()), parallel, a.toolResults());
  }

  private static String ends(Sessions s) {
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT, " %,d sessions started, %,d finished", s.started(), s.finished()));
    if (s.endedByMaxContext() > 0) {
      b.append(String.format(Locale.ROOT, ", %,d ended at the context limit", s.endedByMaxContext()));
    }
    if (s.endedByError() > 0) {
      b.append(String.format(Locale.ROOT, ", %,d ended by an error", s.endedByError()));
    }
    return b.append(String.format(Locale.ROOT, ", %,d still running at the stage end.", s.inProgressAtEnd())).toString();
  }

  private static String at(Sessions.ByTurn t) {
    return t.firstTurn() > Sessions.TURN_CAP ? "later turns (" + (Sessions.TURN_CAP + 1) + "+)" : "turn " + t.firstTurn();
  }

  private static String ms(double v) {
    return v >= 100 ? String.format(Locale.ROOT, "%,d", Math.round(v)) : String.format(Locale.ROOT, "%.1f", v);
  }
}
