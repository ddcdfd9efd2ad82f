package dev.tokenmeter.workload;

import dev.tokenmeter.core.loadgen.RequestSource;
import dev.tokenmeter.core.request.RequestSpec;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.SplittableRandom;

/**
 * Requests from a {@link PromptFile}: request {@code id} sends prompt {@code id mod size}, in file
 * order or, when {@code shuffle} is set, in one fixed permutation drawn from the seed (the same for
 * every cycle through the file). {@code max_tokens} comes from the {@code output} spec when given
 * (drawn per request from {@code (seed, id)}, as {@link SyntheticWorkload} does), else from the
 * record's own {@code max_tokens}/{@code output_tokens}, else none (the server decides).
 *
 * <p>Prompt tokens are counted once, at construction, with the estimator; {@code promptTokensExact}
 * is its {@link TokenEstimator#exact()}. {@code next} is an array read plus, with an output spec,
 * one draw. Thread-safe (immutable).
 */
public final class FileWorkload implements RequestSource {

  static final long SHUFFLE_STREAM = 4;

  private final List<PromptFile.Entry> entries;
  private final int[] order;
  private final int[] promptTokens;
  private final boolean exact;
  private final LengthSpec output;
  private final long seed;

  /**
   * @param file the prompts
   * @param output {@code max_tokens} to ask for, or null to use each record's own (if any)
   * @param seed seeds the shuffle and the output draws
   * @param shuffle whether to send the prompts in a seeded random order rather than file order
   * @param estimator counts prompt tokens
   */
  public FileWorkload(
      PromptFile file, LengthSpec output, long seed, boolean shuffle, TokenEstimator estimator) {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(estimator, "estimator");
    this.entries = file.entries();
    this.output = output;
    this.seed = seed;
    this.exact = estimator.exact();
    this.order = new int[entries.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    if (shuffle) {
      shuffle(order, Draws.forItem(seed, SHUFFLE_STREAM, 0));
    }
    this.promptTokens = new int[entries.size()];
    for (int i = 0; i < promptTokens.length; i++) {
      promptTokens[i] = estimator.countPrompt(entries.get(i).prompt());
    }
  }

  /** File order, prompts sized with {@link TokenEstimator#heuristic()}. */
  public FileWorkload(PromptFile file, LengthSpec output, long seed) {
    this(file, output, seed, false, TokenEstimator.heuristic());
  }

  @Override
  public RequestSpec next(long id) {
    int index = order[(int) Math.floorMod(id, (long) order.length)];
    PromptFile.Entry entry = entries.get(index);
    OptionalInt maxTokens =
        output == null
            ? entry.maxTokens()
            : OptionalInt.of(
                output.sample(Draws.forItem(seed, SyntheticWorkload.OUTPUT_STREAM, id)));
    return new RequestSpec(id, entry.prompt(), promptTokens[index], exact, maxTokens);
  }

  /** Number of distinct prompts before the cycle repeats. */
  public int size() {
    return order.length;
  }

  /** Fisher-Yates, from the last position down. */
  private static void shuffle(int[] a, SplittableRandom random) {
    for (int i = a.length - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
}
