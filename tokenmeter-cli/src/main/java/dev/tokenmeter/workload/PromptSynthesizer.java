package dev.tokenmeter.workload;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Builds synthetic English-like prompts of a requested token count, deterministic for a given
 * random. Text is sentences of 5 to 20 words drawn from a bundled vocabulary ({@code words.txt},
 * about 2,400 common English words) mixed with frequent function words, with commas, numbers and
 * end punctuation: varied enough that a server's tokenizer and prefix cache see ordinary text, not
 * one repeated word. The first words are random, so two prompts share a prefix only by chance (two
 * prompts share their first 5 words with probability about 1e-15).
 *
 * <p>Sizes are as counted by the {@link TokenEstimator}. With an {@link TokenEstimator#exact}
 * tokenizer the text has exactly the target count (the words up to the last one that stays below
 * it, topped up with one-token function words), unless a shared prefix alone exceeds it. With an
 * estimate, the text is the shortest run of words whose count reaches the target, so it
 * overshoots by at most one word's tokens (1 or 2 with the heuristic), and the server's own count
 * differs; see {@link TokenEstimator#heuristic()}.
 *
 * <p>Immutable and thread-safe: per-word costs are computed once at construction.
 *
 * <pre>{@code
 * PromptSynthesizer synth = PromptSynthesizer.standard();
 * Synthesized p = synth.text(512, new SplittableRandom(42)); // p.tokens() is 512 or a little more
 * }</pre>
 */
public final class PromptSynthesizer {

  /** A synthesized text and its token count by the synthesizer's estimator. */
  public record Synthesized(String text, int tokens, boolean exact) {
    public Synthesized {
      Objects.requireNonNull(text, "text");
    }
  }

  /** Between the shared prefix and the per-request text: a paragraph break. */
  static final String PREFIX_SEPARATOR = "\n\n";

  // Share of words drawn from FUNCTION_WORDS rather than the whole vocabulary: about a third of
  // running English text is these few dozen words.
  private static final double FUNCTION_WORD_SHARE = 0.3;
  private static final double COMMA_CHANCE = 0.07;
  private static final double NUMBER_CHANCE = 0.02;
  private static final int MIN_SENTENCE_WORDS = 5;
  private static final int MAX_SENTENCE_WORDS = 20;
  private static final String[] FUNCTION_WORDS = {
    "the", "of", "and", "to", "a", "in", "is", "that", "for", "it", "as", "was", "with", "on", "by",
    "be", "at", "this", "from", "or", "an", "are", "not", "have", "but", "which", "they", "his",
    "her", "their", "we", "you", "he", "she", "will", "would", "can", "has", "had", "been", "were"
  };

  private final TokenEstimator estimator;
  private final String[] lower; // " word"
  private final String[] capital; // " Word"
  private final int[] lowerCost;
  private final int[] capitalCost;
  private final String[] function;
  private final int[] functionCost;

  /** A synthesizer over the bundled vocabulary that sizes text with {@code estimator}. */
  public PromptSynthesizer(TokenEstimator estimator) {
    this(estimator, Vocabulary.WORDS);
  }

  PromptSynthesizer(TokenEstimator estimator, List<String> words) {
    this.estimator = Objects.requireNonNull(estimator, "estimator");
    if (words.isEmpty()) {
      throw new IllegalArgumentException("empty vocabulary");
    }
    lower = new String[words.size()];
    capital = new String[words.size()];
    lowerCost = new int[words.size()];
    capitalCost = new int[words.size()];
    for (int i = 0; i < lower.length; i++) {
      String w = words.get(i);
      lower[i] = " " + w;
      capital[i] = " " + w.substring(0, 1).toUpperCase(Locale.ROOT) + w.substring(1);
      // At least 1 a word, so the writer always progresses toward the target; the recount of
      // the whole text corrects the estimate either way.
      lowerCost[i] = Math.max(1, estimator.count(lower[i]));
      capitalCost[i] = Math.max(1, estimator.count(capital[i]));
    }
    function = new String[FUNCTION_WORDS.length];
    functionCost = new int[FUNCTION_WORDS.length];
    for (int i = 0; i < function.length; i++) {
      function[i] = " " + FUNCTION_WORDS[i];
      functionCost[i] = Math.max(1, estimator.count(function[i]));
    }
  }

  /** The bundled vocabulary sized with {@link TokenEstimator#heuristic()}. */
  public static PromptSynthesizer standard() {
    return Holder.STANDARD;
  }

  /** The estimator that sizes the text. */
  public TokenEstimator estimator() {
    return estimator;
  }

  /** Words in the vocabulary (function words not counted twice). */
  public int vocabularySize() {
    return lower.length;
  }

  /** Text of at least {@code tokens} tokens (at least one word), drawn from {@code random}. */
  public Synthesized text(int tokens, SplittableRandom random) {
    return text("", tokens, random);
  }

  /**
   * {@code sharedPrefix}, a paragraph break, then random text, {@code tokens} in all; when the
   * prefix alone reaches {@code tokens}, one random sentence still follows it so requests differ.
   * An empty prefix means no prefix and no break.
   */
  public Synthesized text(String sharedPrefix, int tokens, SplittableRandom random) {
    // About 7 characters a token with the heuristic; capped so an outlier cannot overflow it.
    int capacity = (int) Math.min(1L << 26, 7L * Math.max(tokens, 1) + sharedPrefix.length() + 16);
    StringBuilder sb = new StringBuilder(capacity);
    int base = 0;
    if (!sharedPrefix.isEmpty()) {
      sb.append(sharedPrefix).append(PREFIX_SEPARATOR);
      base = estimator.count(sb);
    }
    // No tokenizer packs more than about 64 characters of English words into one token.
    long maxChars = sb.length() + 64L * tokens + 1024;
    Writer writer = new Writer(sb, random);
    writer.word(); // at least one random word, so no two requests are the same text
    if (!sharedPrefix.isEmpty() && base + writer.cost >= tokens) {
      writer.finishSentence();
      String text = sb.toString();
      return new Synthesized(text, estimator.count(text), estimator.exact());
    }
    // Additive estimators (the heuristic) reach the target in one pass; for others the whole text
    // is recounted and the deficit topped up until the count holds.
    int costAtBase = 0;
    int counted;
    while (true) {
      while (base + writer.cost - costAtBase < tokens) {
        writer.word();
      }
      counted = estimator.count(sb);
      if (counted >= tokens) {
        break;
      }
      if (sb.length() > maxChars) {
        throw new IllegalStateException(
            "token estimator "
                + estimator
                + " counts only "
                + counted
                + " tokens in "
                + sb.length()
                + " characters of text; it must grow as text is added");
      }
      base = counted;
      costAtBase = writer.cost;
    }
    if (counted == tokens || (!estimator.exact() && counted - tokens < writer.lastCost)) {
      return new Synthesized(sb.toString(), counted, estimator.exact());
    }
    int shortest = shortestReaching(sb, writer.wordEnds, writer.words, tokens);
    if (estimator.exact()) {
      int before = shortest == 0 ? writer.firstWordStart : writer.wordEnds[shortest - 1];
      return fill(sb.substring(0, before), tokens, random);
    }
    String text = sb.substring(0, writer.wordEnds[shortest]);
    return new Synthesized(text, estimator.count(text), estimator.exact());
  }

  /**
   * {@code text} cut or padded to {@code tokens} tokens: cut at the last word boundary after {@code
   * keepChars} that stays within {@code tokens}, then topped up with one-token function words (exact
   * with an exact estimator; with an estimate, within a word). The first {@code keepChars}
   * characters are kept as they are when they alone fit, so texts that share them share a prefix.
   * Used by trace replay, whose prompts are fixed blocks cut to each record's length.
   */
  public Synthesized fit(String text, int keepChars, int tokens, SplittableRandom random) {
    int counted = estimator.count(text);
    if (counted == tokens) {
      return new Synthesized(text, counted, estimator.exact());
    }
    if (counted > tokens) {
      // The longest cut at a space after keepChars whose count stays within tokens (binary search:
      // the count is monotone in the text's length).
      int from = Math.min(Math.max(0, keepChars), text.length());
      int[] cuts = new int[16];
      int n = 0;
      cuts[n++] = from;
      for (int i = text.indexOf(' ', from + 1); i >= 0; i = text.indexOf(' ', i + 1)) {
        if (n == cuts.length) {
          cuts = Arrays.copyOf(cuts, n * 2);
        }
        cuts[n++] = i;
      }
      int best = 0;
      int lo = 1;
      int hi = n - 1;
      while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        if (estimator.count(text.subSequence(0, cuts[mid])) <= tokens) {
          best = mid;
          lo = mid + 1;
        } else {
          hi = mid - 1;
        }
      }
      int lo2 = cuts[best];
      text = text.substring(0, lo2);
      if (estimator.count(text) > tokens) {
        text = ""; // the kept part alone is too long: start over from nothing
      }
    }
    if (!estimator.exact()) {
      StringBuilder sb = new StringBuilder(text);
      int c = estimator.count(sb);
      while (c < tokens) {
        sb.append(word(sb, function[random.nextInt(function.length)]));
        c = estimator.count(sb);
      }
      return new Synthesized(sb.toString(), c, false);
    }
    return fill(text, tokens, random);
  }

  /**
   * {@code text} (fewer than {@code tokens} tokens) topped up to exactly {@code tokens} with
   * function words, one token at a time: a space-led common word is one token in every BPE
   * vocabulary checked (o200k, cl100k, Llama 2/3, Qwen3) and does not merge with what precedes
   * it, so this takes one recount per token missing (usually 1 or 2). A word that would overshoot
   * is skipped for another; if none fits, the text ends just above the target and its count says
   * so (the count stays exact either way).
   */
  private Synthesized fill(String text, int tokens, SplittableRandom random) {
    StringBuilder sb = new StringBuilder(text);
    int counted = estimator.count(sb);
    while (counted < tokens) {
      int start = random.nextInt(function.length);
      int next = -1;
      for (int k = 0; k < function.length && next < 0; k++) {
        int len = sb.length();
        sb.append(word(sb, function[(start + k) % function.length]));
        int c = estimator.count(sb);
        if (c > counted && c <= tokens) {
          next = c;
        } else {
          sb.setLength(len);
        }
      }
      if (next < 0) {
        sb.append(word(sb, function[start]));
        next = estimator.count(sb);
      }
      counted = next;
    }
    String out = sb.toString();
    return new Synthesized(out, counted, true);
  }

  /** {@code spaced} (" word"), without its space at the start of the text or of a paragraph. */
  private static String word(StringBuilder sb, String spaced) {
    return sb.isEmpty() || sb.charAt(sb.length() - 1) == '\n' ? spaced.substring(1) : spaced;
  }

  /**
   * The index of the shortest word end whose text reaches {@code tokens} tokens, for estimators that
   * are not additive and so can overshoot by more than the last word. Binary search over word ends,
   * assuming the count is monotone; the whole text reaches the target.
   */
  private int shortestReaching(StringBuilder sb, int[] wordEnds, int words, int tokens) {
    int lo = 0;
    int hi = words - 1;
    int answer = hi;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (estimator.count(sb.subSequence(0, wordEnds[mid])) >= tokens) {
        answer = mid;
        hi = mid - 1;
      } else {
        lo = mid + 1;
      }
    }
    return answer;
  }

  /** Appends words and punctuation to a builder, tracking their estimated cost. */
  private final class Writer {
    private final StringBuilder sb;
    private final SplittableRandom random;
    private int sentenceLeft;
    int[] wordEnds = new int[64]; // end offset of each word in sb
    int words;
    int cost;
    int lastCost;
    int firstWordStart = -1; // offset in sb where the first word begins

    Writer(StringBuilder sb, SplittableRandom random) {
      this.sb = sb;
      this.random = random;
    }

    /** One word (with its space), ending the sentence after it when the sentence is full. */
    void word() {
      boolean first = sentenceLeft == 0;
      if (first) {
        sentenceLeft = random.nextInt(MIN_SENTENCE_WORDS, MAX_SENTENCE_WORDS + 1);
      }
      boolean atStart = sb.isEmpty() || sb.charAt(sb.length() - 1) == '\n';
      int at = sb.length();
      if (firstWordStart < 0) {
        firstWordStart = at;
      }
      int costBefore = cost;
      if (!first && random.nextDouble() < NUMBER_CHANCE) {
        String number = " " + random.nextInt(1, 10_000);
        sb.append(number);
        cost += Math.max(1, estimator.count(number));
      } else if (first) {
        int i = random.nextInt(capital.length);
        sb.append(capital[i]);
        cost += capitalCost[i];
      } else if (random.nextDouble() < FUNCTION_WORD_SHARE) {
        int i = random.nextInt(function.length);
        sb.append(function[i]);
        cost += functionCost[i];
      } else {
        int i = random.nextInt(lower.length);
        sb.append(lower[i]);
        cost += lowerCost[i];
      }
      if (atStart) {
        sb.deleteCharAt(at); // no leading space at the start of the text or a paragraph
      }
      if (--sentenceLeft == 0) {
        double r = random.nextDouble();
        punctuation(r < 0.85 ? "." : r < 0.95 ? "?" : "!");
      } else if (random.nextDouble() < COMMA_CHANCE) {
        punctuation(",");
      }
      lastCost = cost - costBefore;
      if (words == wordEnds.length) {
        wordEnds = Arrays.copyOf(wordEnds, words * 2);
      }
      wordEnds[words++] = sb.length();
    }

    void finishSentence() {
      while (sentenceLeft > 0) {
        word();
      }
    }

    private void punctuation(String mark) {
      sb.append(mark);
      cost += estimator.count(mark);
    }
  }

  private static final class Holder {
    static final PromptSynthesizer STANDARD = new PromptSynthesizer(TokenEstimator.heuristic());
  }

  /** The bundled word list, loaded once. */
  static final class Vocabulary {
    static final String RESOURCE = "words.txt";
    static final List<String> WORDS = load();

    private static List<String> load() {
      try (InputStream in = PromptSynthesizer.class.getResourceAsStream(RESOURCE)) {
        if (in == null) {
          throw new IllegalStateException("missing resource " + RESOURCE);
        }
        BufferedReader reader =
            new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        List<String> words = new ArrayList<>();
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
          String w = line.strip();
          if (!w.isEmpty() && !w.startsWith("#")) {
            words.add(w);
          }
        }
        return List.copyOf(words);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
