package dev.tokenmeter.workload;

import dev.tokenmeter.core.loadgen.RequestSource;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * Synthetic requests: a prompt of a length drawn from {@code input}, asking for a {@code
 * max_tokens} drawn from {@code output} (or none, to let the server decide), optionally behind a
 * shared prefix of {@code sharedPrefixTokens} tokens that every request repeats (for prefix-cache
 * experiments; the prefix counts toward the input length).
 *
 * <p>Request {@code id}'s spec depends only on {@code (seed, id)}, not on call order or on which
 * other ids were drawn: each request draws from its own random, seeded by mixing the seed with the
 * id, and the input length, output length and text use three independent streams, so giving one
 * variant an output spec does not change its prompts. Two variants under one seed send identical
 * prompts. Prompts are {@link Prompt.Text}; chat endpoints send them as one user message.
 *
 * <p>{@code next} builds the prompt on the spot, about 35 microseconds per 1,000 tokens with the
 * heuristic estimator (a 32k-token prompt: about 1.1 ms; JDK 25 on a shared 2-core machine). To
 * keep that off an event loop, wrap it in {@link PreparedRequests}. Thread-safe (immutable).
 */
public final class SyntheticWorkload implements RequestSource {

  // Stream numbers for Draws.forItem: one independent random per purpose and request.
  static final long INPUT_STREAM = 0;
  static final long OUTPUT_STREAM = 1;
  static final long TEXT_STREAM = 2;
  static final long PREFIX_STREAM = 3;

  private final LengthSpec input;
  private final LengthSpec output;
  private final long seed;
  private final PromptSynthesizer synthesizer;
  private final String sharedPrefix;

  /**
   * @param input prompt lengths in tokens (shared prefix included)
   * @param output {@code max_tokens} to ask for, or null to send none
   * @param seed seeds every draw
   * @param synthesizer builds and sizes the text; its estimator sets {@code promptTokensExact}
   * @param sharedPrefixTokens tokens of a prefix every request starts with, 0 for none
   */
  public SyntheticWorkload(
      LengthSpec input,
      LengthSpec output,
      long seed,
      PromptSynthesizer synthesizer,
      int sharedPrefixTokens) {
    this.input = Objects.requireNonNull(input, "input");
    this.output = output;
    this.seed = seed;
    this.synthesizer = Objects.requireNonNull(synthesizer, "synthesizer");
    if (sharedPrefixTokens < 0) {
      throw new IllegalArgumentException(
          "shared prefix tokens must not be negative, got " + sharedPrefixTokens);
    }
    this.sharedPrefix =
        sharedPrefixTokens == 0
            ? ""
            : synthesizer.text(sharedPrefixTokens, Draws.forItem(seed, PREFIX_STREAM, 0)).text();
  }

  /** No shared prefix, the {@link PromptSynthesizer#standard() standard} synthesizer. */
  public SyntheticWorkload(LengthSpec input, LengthSpec output, long seed) {
    this(input, output, seed, PromptSynthesizer.standard(), 0);
  }

  @Override
  public RequestSpec next(long id) {
    int tokens = input.sample(Draws.forItem(seed, INPUT_STREAM, id));
    PromptSynthesizer.Synthesized text =
        synthesizer.text(sharedPrefix, tokens, Draws.forItem(seed, TEXT_STREAM, id));
    OptionalInt maxTokens =
        output == null
            ? OptionalInt.empty()
            : OptionalInt.of(output.sample(Draws.forItem(seed, OUTPUT_STREAM, id)));
    return new RequestSpec(
        id, new Prompt.Text(text.text()), text.tokens(), text.exact(), maxTokens);
  }

  /**
   * The same prompt and output lengths as a {@code SyntheticWorkload} with this input, output and
   * seed, drawn from the same random streams, without building any text: each spec's prompt is
   * empty and its {@code promptTokens} is the drawn length itself (marked exact). For consumers
   * that read only the counts (the virtual-time simulator), where building text would cost more
   * than simulating the request (about 20 µs for 512 tokens). Thread-safe (immutable).
   *
   * @param output {@code max_tokens} to ask for, or null to send none
   */
  public static RequestSource lengthsOnly(LengthSpec input, LengthSpec output, long seed) {
    return lengthsOnly(input, output, seed, 0);
  }

  /**
   * {@link #lengthsOnly(LengthSpec, LengthSpec, long)} for prompts behind a shared prefix of
   * {@code sharedPrefixTokens}: the prefix counts toward the drawn length, and a prompt is at least
   * one token longer than the prefix (bench's synthesizer always follows the prefix with some text
   * of the request's own: a paragraph break and a sentence, a few tokens, when the prefix alone
   * reaches the drawn length). The consumer knows the prefix from its own settings; the specs carry
   * no text.
   */
  public static RequestSource lengthsOnly(
      LengthSpec input, LengthSpec output, long seed, int sharedPrefixTokens) {
    Objects.requireNonNull(input, "input");
    if (sharedPrefixTokens < 0) {
      throw new IllegalArgumentException(
          "shared prefix tokens must not be negative, got " + sharedPrefixTokens);
    }
    int minimum = sharedPrefixTokens == 0 ? 0 : sharedPrefixTokens + 1;
    Prompt.Text empty = new Prompt.Text("");
    return id -> {
      int tokens = Math.max(minimum, input.sample(Draws.forItem(seed, INPUT_STREAM, id)));
      OptionalInt maxTokens =
          output == null
              ? OptionalInt.empty()
              : OptionalInt.of(output.sample(Draws.forItem(seed, OUTPUT_STREAM, id)));
      return new RequestSpec(id, empty, tokens, true, maxTokens);
    };
  }

  /** The prefix every prompt starts with (followed by a paragraph break), empty for none. */
  public String sharedPrefix() {
    return sharedPrefix;
  }

  /** One line for reports: {@code "synthetic input lognormal(...), output fixed 128"}. */
  public String describe() {
    return "synthetic input "
        + input.describe()
        + (sharedPrefix.isEmpty() ? "" : " (shared prefix)")
        + ", output "
        + (output == null ? "server default" : output.describe());
  }
}
