/**
 * Statistics with no tokenmeter types, over plain arrays of numbers: Welch's t-test ({@link
 * dev.tokenmeter.core.stats.Welch}), the Mann-Whitney U test ({@link
 * dev.tokenmeter.core.stats.MannWhitney}), Fisher's exact test ({@link
 * dev.tokenmeter.core.stats.FisherExact}), Holm's correction ({@link dev.tokenmeter.core.stats.Holm}),
 * and bootstrap intervals of quantiles ({@link dev.tokenmeter.core.stats.QuantileBootstrap}, over
 * whole blocks of time: {@link dev.tokenmeter.core.stats.BlockBootstrap}). Distributions and
 * quantiles of Student's t come from Apache Commons Statistics. Run comparison ({@code
 * core.analysis}) is their user.
 *
 * <p>May use: nothing else in tokenmeter.
 */
package dev.tokenmeter.core.stats;
