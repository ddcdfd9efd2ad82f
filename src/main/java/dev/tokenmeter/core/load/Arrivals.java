package dev.tokenmeter.core.load;

/** The spacing of open-loop arrivals. */
public sealed interface Arrivals {

  /** Evenly spaced: arrival i at {@code i / rate}. */
  record Constant() implements Arrivals {}

  /** Poisson process: exponential gaps with mean {@code 1 / rate}. */
  record Poisson() implements Arrivals {}

  /**
   * Gamma-distributed gaps with shape {@code burstiness} and mean {@code 1 / rate}: burstiness 1 is
   * Poisson, below 1 burstier, above 1 more regular (vLLM's {@code --burstiness}).
   */
  record Gamma(double burstiness) implements Arrivals {
    public Gamma {
      if (!(burstiness > 0) || Double.isInfinite(burstiness)) {
        throw new IllegalArgumentException("burstiness must be a positive number, got " + burstiness);
      }
    }
  }

  default String label() {
    return switch (this) {
      case Constant c -> "constant";
      case Poisson p -> "poisson";
      case Gamma g -> "gamma(" + g.burstiness() + ")";
    };
  }
}
