package dev.tokenmeter.simulator;

import java.util.SplittableRandom;

/**
 * The "natural" output length of a request that does not set {@code ignore_eos}: how many tokens
 * the model generates, EOS included, before it stops by itself. The server caps it at {@code
 * max_tokens} (then {@code finish_reason} is "length") and raises it to {@code min_tokens + 1}.
 * Samples are drawn from the request's seeded random stream, so they are reproducible.
 */
public sealed interface OutputLengths {

  /** One sample, {@code ≥ 1}. */
  int sample(SplittableRandom random);

  /** Always {@code tokens}. */
  static OutputLengths fixed(int tokens) {
    return new Fixed(tokens);
  }

  /** Uniform over {@code [minTokens, maxTokens]}, both inclusive. */
  static OutputLengths uniform(int minTokens, int maxTokens) {
    return new Uniform(minTokens, maxTokens);
  }

  /**
   * Geometric with mean {@code meanTokens}: each token is EOS with probability {@code 1/mean},
   * the memoryless stop of a model that may end at any step.
   */
  static OutputLengths geometric(double meanTokens) {
    return new Geometric(meanTokens);
  }

  /** See {@link #fixed}. */
  record Fixed(int tokens) implements OutputLengths {
    public Fixed {
      if (tokens < 1) {
        throw new IllegalArgumentException("tokens must be >= 1: " + tokens);
      }
    }

    @Override
    public int sample(SplittableRandom random) {
      return tokens;
    }
  }

  /** See {@link #uniform}. */
  record Uniform(int minTokens, int maxTokens) implements OutputLengths {
    public Uniform {
      if (minTokens < 1 || maxTokens < minTokens) {
        throw new IllegalArgumentException("need 1 <= min <= max: " + minTokens + ", " + maxTokens);
      }
    }

    @Override
    public int sample(SplittableRandom random) {
      return random.nextInt(minTokens, maxTokens + 1);
    }
  }

  /** See {@link #geometric}. */
  record Geometric(double meanTokens) implements OutputLengths {
    public Geometric {
      if (!(meanTokens >= 1)) {
        throw new IllegalArgumentException("meanTokens must be >= 1: " + meanTokens);
      }
    }

    @Override
    public int sample(SplittableRandom random) {
      if (meanTokens == 1) {
        return 1;
      }
      // Inverse CDF of the geometric distribution on {1, 2, ...} with p = 1/mean.
      double u = 1.0 - random.nextDouble(); // (0, 1]
      double n = 1 + Math.floor(Math.log(u) / Math.log1p(-1.0 / meanTokens));
      return (int) Math.min(Integer.MAX_VALUE, n);
    }
  }
}
