package dev.tokenmeter.core.metrics;

import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.request.TokenCountSource;
import java.util.EnumMap;
import java.util.Map;

/**
 * The token accounting of one stage's measured requests (docs/METRICS.md, "Usage versus chunks"
 * and the paragraphs after it): output count sources, usage against chunks and against the client
 * tokenizer, the chat template's prompt overhead, and words per output token. Single writer, like {@link StageRecorder}.
 */
final class TokenTally {
  private final String tokenizer;
  private final long[] sources = new long[TokenCountSource.values().length];
  private long usageChunkDisagreements;

  private long overheadCount;
  private long overheadEstimated;
  private long overheadSum;
  private long overheadClientSum;
  private long overheadMin = Long.MAX_VALUE;
  private long overheadMax = Long.MIN_VALUE;

  private long compared;
  private long diffSum;
  private long disagreements;
  private long absDiffSum;
  private long absDiffMax;
  private long relCount;
  private double relSum;
  private double relMax = Double.NaN;

  private long words;
  private long wordTokens;

  /** @param tokenizer the client tokenizer's name, null when the run has none */
  TokenTally(String tokenizer) {
    this.tokenizer = tokenizer;
  }

  /** Adds one measured request. */
  void add(RequestMetrics m) {
    sources[m.outputTokenSource().ordinal()]++;
    if (m.countsDisagree()) {
      usageChunkDisagreements++;
    }
    if (m.usagePromptTokens() >= 0 && m.clientPromptTokens() >= 0) {
      long d = m.usagePromptTokens() - m.clientPromptTokens();
      overheadCount++;
      overheadSum += d;
      overheadClientSum += m.clientPromptTokens();
      overheadMin = Math.min(overheadMin, d);
      overheadMax = Math.max(overheadMax, d);
      if (!m.clientPromptTokensExact()) {
        overheadEstimated++;
      }
    }
    if (m.usageOutputTokens() >= 0 && m.tokenizerOutputTokens() >= 0) {
      compare(m.usageOutputTokens(), m.tokenizerOutputTokens());
    }
    if (m.succeeded() && m.answerOnly()) {
      words += m.outputWords();
      wordTokens += m.outputTokens();
    }
  }

  private void compare(int usage, int counted) {
    compared++;
    long diff = (long) counted - usage;
    diffSum += diff;
    if (diff == 0) {
      return;
    }
    long abs = Math.abs(diff);
    disagreements++;
    absDiffSum += abs;
    absDiffMax = Math.max(absDiffMax, abs);
    if (usage > 0) {
      double rel = (double) abs / usage;
      relCount++;
      relSum += rel;
      relMax = Double.isNaN(relMax) ? rel : Math.max(relMax, rel);
    }
  }

  StageResult.TokenAccounting result() {
    Map<TokenCountSource, Long> map = new EnumMap<>(TokenCountSource.class);
    for (TokenCountSource s : TokenCountSource.values()) {
      map.put(s, sources[s.ordinal()]);
    }
    boolean any = overheadCount > 0;
    StageResult.PromptOverhead overhead =
        new StageResult.PromptOverhead(
            overheadCount,
            overheadEstimated,
            any ? (double) overheadSum / overheadCount : Double.NaN,
            any ? overheadMin : 0,
            any ? overheadMax : 0,
            any ? (double) overheadClientSum / overheadCount : Double.NaN);
    StageResult.UsageVsTokenizer vs =
        new StageResult.UsageVsTokenizer(
            tokenizer,
            compared,
            disagreements,
            compared > 0 ? (double) diffSum / compared : Double.NaN,
            disagreements > 0 ? (double) absDiffSum / disagreements : Double.NaN,
            absDiffMax,
            relCount > 0 ? relSum / relCount : Double.NaN,
            relMax);
    return new StageResult.TokenAccounting(
        map, usageChunkDisagreements, overhead, vs, words, wordTokens);
  }
}
