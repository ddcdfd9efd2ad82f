package dev.tokenmeter.core.analysis;

/**
 * The standard normal distribution's tails, for the normal approximations of {@link MannWhitney}.
 * Stateless.
 *
 * <p>{@code erfc} is the Chebyshev fit of Numerical Recipes ({@code erfcc}, 2nd ed. §6.2): fractional
 * error below 1.2e-7 everywhere, tails included, which is all a p-value printed to 2 significant
 * digits needs.
 */
public final class Normal {
  private Normal() {}

  /** {@code P(Z > z)} for a standard normal {@code Z}. */
  public static double upperTail(double z) {
    return 0.5 * erfc(z / Math.sqrt(2));
  }

  /** {@code P(|Z| >= |z|)}: the two-sided p-value of a z statistic. */
  public static double twoSided(double z) {
    return Math.min(1.0, 2 * upperTail(Math.abs(z)));
  }

  /** The complementary error function. */
  public static double erfc(double x) {
    double z = Math.abs(x);
    double t = 1 / (1 + 0.5 * z);
    double poly =
        -z * z - 1.26551223
            + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806
            + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223
            + t * 0.17087277))))))));
    double r = t * Math.exp(poly);
    return x >= 0 ? r : 2 - r;
  }
}
