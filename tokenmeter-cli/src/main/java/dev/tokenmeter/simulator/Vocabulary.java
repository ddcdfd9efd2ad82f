package dev.tokenmeter.simulator;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.util.SplittableRandom;

/**
 * The fixed list of word tokens the simulator generates, each pre-encoded once as the UTF-8 bytes
 * of its JSON string body (escaped, without quotes), so emitting a token is a buffer copy.
 * Immutable and thread-safe.
 *
 * <p>Mostly common English words with a leading space, as BPE tokenizers split running text;
 * plus punctuation, a newline and a quote (which need JSON escapes) and two non-ASCII words (which
 * go out as raw UTF-8, as pydantic writes them), so a client's decoding is exercised.
 */
final class Vocabulary {

  private static final String[] WORDS = {
    " the", " of", " and", " to", " a", " in", " is", " that", " for", " it", " as", " was", " with",
    " be", " by", " on", " not", " he", " this", " are", " or", " his", " from", " at", " which",
    " but", " have", " an", " had", " they", " you", " were", " their", " one", " all", " we",
    " can", " her", " has", " there", " been", " if", " more", " when", " will", " would", " who",
    " so", " no", " model", " token", " tokens", " server", " request", " latency", " time",
    " first", " second", " stream", " batch", " memory", " cache", " prefill", " decode", " GPU",
    " throughput", " user", " users", " load", " test", " measure", " number", " rate", " per",
    " each", " other", " into", " than", " then", " them", " these", " some", " what", " about",
    " out", " up", " its", " only", " new", " also", " over", " after", " most", " such", " many",
    " through", " before", " between", " under", " while", " where", " because", " system",
    " result", " value", " data", " run", " window", " steady", " state", " queue", " tail",
    " percentile", " fast", " slow", " small", " large", " long", " short", " high", " low",
    " good", " well", " very", " much", " every", " same", " different", " simple", " exact",
    " known", " ground", " truth", " clock", " second", " minute", " hour", ",", ".", ";", ":",
    "!", "?", "\n", "\"", " (", ")", " naïve", " café", " 1", " 2", " 10", " 100", "-", "'s",
  };

  private static final byte[][] ESCAPED = new byte[WORDS.length][];

  static {
    JsonStringEncoder encoder = JsonStringEncoder.getInstance();
    for (int i = 0; i < WORDS.length; i++) {
      ESCAPED[i] = encoder.quoteAsUTF8(WORDS[i]);
    }
  }

  private Vocabulary() {}

  /** Number of distinct tokens. */
  static int size() {
    return WORDS.length;
  }

  /** A token drawn uniformly from the list. */
  static int draw(SplittableRandom random) {
    return random.nextInt(WORDS.length);
  }

  /** The text of token {@code index}. */
  static String text(int index) {
    return WORDS[index];
  }

  /** The escaped UTF-8 JSON string body of token {@code index}. Do not modify. */
  static byte[] jsonBytes(int index) {
    return ESCAPED[index];
  }
}
