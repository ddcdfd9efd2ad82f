package dev.tokenmeter.simulator.engine;

import java.util.Locale;

/**
 * Numeric precision of stored weights or of the KV cache, as a serving engine loads them: {@code
 * --dtype bfloat16}, {@code --quantization fp8} (W8A8 FP8), INT8 (W8A8 SmoothQuant-style), INT4
 * (AWQ/GPTQ weight-only, computed in BF16), FP4 (NVIDIA's NVFP4) and MXFP4 (the OCP microscaling
 * format gpt-oss ships in), {@code --kv-cache-dtype fp8}.
 *
 * <p>The 4-bit floating-point formats count their block scales, which are part of every weight
 * read: NVFP4 stores one FP8 (E4M3) scale per 16 values, 4 + 8/16 = 4.5 bits per value; MXFP4 one
 * E8M0 scale per 32 values, 4 + 8/32 = 4.25 bits (OCP Microscaling Formats (MX) v1.0; NVIDIA's
 * "Introducing NVFP4" technical blog). They run on FP4 tensor cores where the GPU has them
 * (Blackwell, MI355X), else as weight-only 4-bit at the BF16 peak (vLLM's Marlin and Triton MXFP4
 * paths on Hopper).
 */
public enum Precision {
  BF16(2.0),
  FP16(2.0),
  FP8(1.0),
  INT8(1.0),
  /** 4-bit weights; group scales (about 3% more at group size 128) are not counted. */
  INT4(0.5),
  /** NVFP4: 4-bit E2M1 values and one FP8 scale per 16, 4.5 bits per value. */
  FP4(0.5625),
  /** MXFP4: 4-bit E2M1 values and one E8M0 scale per 32, 4.25 bits per value. */
  MXFP4(0.53125);

  private final double bytesPerValue;

  Precision(double bytesPerValue) {
    this.bytesPerValue = bytesPerValue;
  }

  /** Bytes per stored value: 2, 2, 1, 1, 0.5, 0.5625, 0.53125. */
  public double bytesPerValue() {
    return bytesPerValue;
  }

  /** The lower-case name used on the command line and in JSON ({@code "bf16"}). */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Whether values are 4-bit floats run on FP4 tensor cores where the GPU has them. */
  public boolean fp4() {
    return this == FP4 || this == MXFP4;
  }

  /**
   * Parses {@code bf16}, {@code fp16}, {@code fp8}, {@code int8}, {@code int4}, {@code fp4} or
   * {@code mxfp4} (any case; {@code bfloat16}, {@code float16}, {@code half} and {@code nvfp4}
   * too).
   *
   * @throws IllegalArgumentException for any other name
   */
  public static Precision parse(String name) {
    String n = name.trim().toLowerCase(Locale.ROOT);
    return switch (n) {
      case "bf16", "bfloat16" -> BF16;
      case "fp16", "float16", "half" -> FP16;
      case "fp8" -> FP8;
      case "int8" -> INT8;
      case "int4" -> INT4;
      case "fp4", "nvfp4" -> FP4;
      case "mxfp4" -> MXFP4;
      default ->
          throw new IllegalArgumentException(
              "unknown precision '" + name + "' (bf16, fp16, fp8, int8, int4, fp4, mxfp4)");
    };
  }
}
