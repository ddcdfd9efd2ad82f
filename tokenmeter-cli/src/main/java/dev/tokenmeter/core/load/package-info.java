/**
 * Load models as plans: immutable, validated, seeded and clock-free, so they are tested without
 * time. A {@link dev.tokenmeter.core.load.LoadModel} is a closed loop (a target concurrency) or an
 * open loop (a rate with {@link dev.tokenmeter.core.load.Arrivals}: constant, Poisson or gamma
 * spacing, optionally capped), whose {@link dev.tokenmeter.core.load.ArrivalSchedule} yields
 * absolute arrival offsets from the stage start, never "last send + gap", so a late send does not
 * delay later arrivals. A {@link dev.tokenmeter.core.load.StagePlan} is one stage: a load model
 * held through warm-up, a measurement window that a {@link
 * dev.tokenmeter.core.load.StopCondition} ends, and cool-down. {@code core.loadgen} executes them.
 *
 * <p>May use: nothing else in tokenmeter.
 */
package dev.tokenmeter.core.load;
