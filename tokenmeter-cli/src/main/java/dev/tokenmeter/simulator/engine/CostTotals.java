package dev.tokenmeter.simulator.engine;

/**
 * Where an engine's iteration time went, summed over every iteration run: the roofline's
 * compute and memory shares of its GPU time, sampling, all-reduces and launches, and the host
 * overheads. Tells what a run's latency is made of (how much is the GPU's own work, how much
 * the engine's), and lets a calibration see how each fitted factor moves it.
 *
 * @param iterations iterations run
 * @param sequences Σ sequences scheduled over the iterations
 * @param computeBoundNanos Σ of each iteration's GPU time × its compute share (Roofline.Cost;
 *     scales as 1 / MFU to first order)
 * @param memoryBoundNanos Σ of each iteration's GPU time × the rest, plus sampling (1 / MBU)
 * @param fixedNanos Σ all-reduce and launch time (neither efficiency factor moves it)
 * @param iterationOverheadNanos Σ per-iteration host overhead
 * @param sequenceOverheadNanos Σ per-sequence host overhead
 */
public record CostTotals(
    long iterations,
    long sequences,
    double computeBoundNanos,
    double memoryBoundNanos,
    double fixedNanos,
    double iterationOverheadNanos,
    double sequenceOverheadNanos) {

  /** Nothing run yet. */
  public static final CostTotals ZERO = new CostTotals(0, 0, 0, 0, 0, 0, 0);

  /** These totals and one more iteration of {@code sequences} sequences that cost {@code c}. */
  public CostTotals plus(Roofline.Cost c, int sequences) {
    return new CostTotals(
        iterations + 1,
        this.sequences + sequences,
        computeBoundNanos + c.gpuNanos() * c.computeShare(),
        memoryBoundNanos + c.gpuNanos() * (1 - c.computeShare()) + c.samplingNanos()
            + c.draftNanos(), // the drafter's passes: small batches, memory-bound
        fixedNanos + c.allReduceNanos() + c.launchNanos(),
        iterationOverheadNanos + c.iterationOverheadNanos(),
        sequenceOverheadNanos + c.sequenceOverheadNanos());
  }

  /** These totals and {@code o}'s, term by term (two engines' together). */
  public CostTotals plus(CostTotals o) {
    return new CostTotals(iterations + o.iterations, sequences + o.sequences,
        computeBoundNanos + o.computeBoundNanos, memoryBoundNanos + o.memoryBoundNanos,
        fixedNanos + o.fixedNanos, iterationOverheadNanos + o.iterationOverheadNanos,
        sequenceOverheadNanos + o.sequenceOverheadNanos);
  }

  /** Σ of every term: the engine's busy time. */
  public double totalNanos() {
    return computeBoundNanos + memoryBoundNanos + fixedNanos + iterationOverheadNanos
        + sequenceOverheadNanos;
  }
}
