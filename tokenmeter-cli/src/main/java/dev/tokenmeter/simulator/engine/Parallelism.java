package dev.tokenmeter.simulator.engine;

import java.util.Locale;

/**
 * How a deployment spreads a mixture-of-experts model beyond tensor parallelism: data-parallel
 * attention and expert parallelism, as SGLang ({@code --enable-dp-attention --dp-size D
 * --ep-size P}, DeepEP's all-to-all) and vLLM ({@code --data-parallel-size},
 * {@code --enable-expert-parallel}) deploy DeepSeek-V3/R1. Immutable; {@link #NONE} is plain
 * tensor parallelism over every GPU.
 *
 * <pre>
 * design notes
 * - N GPUs (EngineConfig.tensorParallel, the deployment's --gpus) form D attention groups of
 *   A = N / D GPUs. Each group holds its own sequences and their KV cache (the MLA latent is no
 *   longer replicated on all N: KV capacity grows with D) and the attention weights whole, split
 *   over its A GPUs only. A scheduler per group, so sequences and token budgets scale with D.
 *   Sequences go to groups round robin: the busiest holds ceil(S / D) of S sequences, and the
 *   step waits for it (DeepSeek's inference-system overview: "load balancing across DP
 *   instances" is one of its three challenges).
 * - Routed experts over P ranks (P divides N): each GPU holds E / P experts (tensor-split over
 *   N / P GPUs) and reads only those its ranks' tokens touch. A step of T tokens touches each
 *   expert with q = 1 − (1 − k/E)^T; on a rank of E / P experts the count is Binomial(E / P, q)
 *   (experts taken as independent) and the step waits for the busiest rank: the expected maximum
 *   of P such counts. DeepSeek-V3 decoding one token on EP 8: 2.6 experts on the busiest rank
 *   where the mean is 1, the cost of EP at small batches; from a few hundred tokens on every
 *   rank reads all its experts.
 * - With P > 1 the rest of the MLP side (shared experts, dense layers' MLPs, LM head) runs where
 *   its tokens are, split over the attention group (SGLang's --moe-dense-tp-size 1 and
 *   --enable-dp-lm-head in its large-scale EP deployment), and each MoE layer costs a dispatch
 *   and a combine all-to-all (DeepEP): every token a GPU holds goes to its k experts, (P − 1) / P
 *   of them remote, FP8 with one FP32 scale per 128 values out (7,392 B a copy for DeepSeek's
 *   7,168) and BF16 back, as DeepEP's low-latency kernels send them. Peers in the GPU's NVLink
 *   domain are reached at its link bandwidth, others over the GPU's network card; the two run
 *   in parallel. Plus a fixed latency per all-to-all.
 * - Without EP the MLP side stays tensor-parallel over all N GPUs: one all-reduce of the step's
 *   tokens per layer (the gather and scatter around it under DP attention move as much).
 * </pre>
 *
 * @param dataParallelAttention D, attention groups (1: attention tensor-parallel over every GPU)
 * @param expertParallel P, expert-parallel ranks (1: experts tensor-parallel)
 */
public record Parallelism(int dataParallelAttention, int expertParallel) {

  /** Tensor parallelism over every GPU. */
  public static final Parallelism NONE = new Parallelism(1, 1);

  /**
   * Fixed latency of one dispatch or combine inside an NVLink domain: 10 µs, an estimate (twice
   * a small all-reduce's 5 µs: a barrier and one hop), not measured here.
   */
  public static final long A2A_NVLINK_LATENCY_NANOS = 10_000L;

  /**
   * Fixed latency of one dispatch or combine that crosses the network: 40 µs. DeepEP's
   * low-latency kernels (deepseek-ai/DeepEP README, H800 with 400 Gb/s CX7 InfiniBand, 128
   * tokens a rank, DeepSeek-V3's 7,168 hidden and top-8) dispatch at EP 128 and 256 in 192-194
   * µs; their 7.6 MB a GPU take about 151 µs at 50 GB/s, which leaves about 40 µs (combine, BF16,
   * 360 µs where 302 µs are bytes: about 58 µs).
   */
  public static final long A2A_NETWORK_LATENCY_NANOS = 40_000L;

  /** A GPU's network card: 400 Gb/s (ConnectX-7, one a GPU in DGX/HGX H100, H200, B200). */
  public static final double NIC_BYTES_PER_SECOND = 50e9;

  public Parallelism {
    if (dataParallelAttention < 1 || expertParallel < 1) {
      throw new IllegalArgumentException("--dp-attention and --expert-parallel must be >= 1");
    }
  }

  /** Whether this is plain tensor parallelism. */
  public boolean plain() {
    return dataParallelAttention == 1 && expertParallel == 1;
  }

  /**
   * Checks this against {@code gpus} GPUs of {@code model}.
   *
   * @throws IllegalArgumentException naming what does not divide, in one line
   */
  public void check(ModelSpec model, int gpus) {
    if (gpus % dataParallelAttention != 0) {
      throw new IllegalArgumentException("--dp-attention " + dataParallelAttention
          + " must divide --gpus " + gpus + " (each attention group has the same GPUs)");
    }
    if (expertParallel > 1) {
      if (!model.mixtureOfExperts()) {
        throw new IllegalArgumentException("--expert-parallel needs a mixture-of-experts model; "
            + model.id() + " is dense");
      }
      if (gpus % expertParallel != 0 || model.experts() % expertParallel != 0) {
        throw new IllegalArgumentException("--expert-parallel " + expertParallel
            + " must divide --gpus " + gpus + " and the model's " + model.experts() + " experts");
      }
    }
  }

  /** {@code ", DP attention 8, EP 8"}, or empty for plain tensor parallelism. */
  public String describe() {
    return (dataParallelAttention > 1 ? ", DP attention " + dataParallelAttention : "")
        + (expertParallel > 1 ? ", EP " + expertParallel : "");
  }

  /**
   * GPUs one NVLink (or Infinity Fabric, or PCIe) domain holds: 72 for a GB200 NVL72 rack, else
   * 8, an HGX or DGX board.
   */
  public static int linkDomainGpus(GpuSpec gpu) {
    return gpu.id().toLowerCase(Locale.ROOT).startsWith("gb200") ? 72 : 8;
  }

  /**
   * The expected largest of {@code ranks} independent Binomial({@code n}, {@code q}) counts:
   * Σ_{x ≥ 1} P(max ≥ x) = Σ_{x=1..n} (1 − F(x − 1)^ranks). One rank: n·q.
   */
  static double expectedMaxBinomial(int n, double q, int ranks) {
    if (ranks == 1) {
      return n * q;
    }
    if (q >= 1) {
      return n;
    }
    if (q <= 0) {
      return 0;
    }
    double sum = 0;
    double pmf = Math.pow(1 - q, n); // P(X = 0)
    double cdf = pmf;
    for (int x = 1; x <= n; x++) {
      sum += 1 - Math.pow(cdf, ranks);
      pmf *= (double) (n - x + 1) / x * q / (1 - q);
      cdf = Math.min(1, cdf + pmf);
    }
    return sum;
  }
}
