package dev.tokenmeter.simulator.engine;

import java.util.Locale;

/**
 * Numeric precision of stored weights or of the KV cache, as a serving engine loads them: {@code
 * --dtype bfloat16}, {@code --quantization fp8} (W8A8 FP8), INT8 (W8A8 SmoothQuant-style), INT4
 * (AWQ/GPTQ weight-only, computed in BF16), {@code --kv-cache-dtype fp8}.
 */
public enum Precision {
  BF16(2.0),
  FP16(2.0),
  FP8(1.0),
  INT8(1.0),
  /** 4-bit weights; group scales (about 3% more at group size 128) are not counted. */
  INT4(0.5);

  private final double bytesPerValue;

  Precision(double bytesPerValue) {
    this.bytesPerValue = bytesPerValue;
  }

  /** Bytes per stored value: 2, 2, 1, 1, 0.5. */
  public double bytesPerValue() {
    return bytesPerValue;
  }

  /** The lower-case name used on the command line and in JSON ({@code "bf16"}). */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses {@code bf16}, {@code fp16}, {@code fp8}, {@code int8} or {@code int4} (any case;
   * {@code bfloat16}, {@code float16} and {@code half} too).
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
      default ->
          throw new IllegalArgumentException(
              "unknown precision '" + name + "' (bf16, fp16, fp8, int8, int4)");
    };
  }
}
